/**
 * Pause before each retry, in seconds: the first within 10 s, then growing, about 52 hours in
 * all (the contract asks for at least 24), like the schedules merchants know from Stripe. After
 * the last one the delivery is FAILED and can be retried by hand. WEBHOOK_RETRY_SCHEDULE
 * replaces it (tests use a short one).
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [
  5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400,
];

/** When attempt number `attempt` (1-based, just failed) is followed by another; null when the schedule is spent. */
export function nextAttemptAt(attempt: number, schedule: readonly number[], now: Date): Date | null {
  const pause = schedule[attempt - 1];
  if (pause === undefined) return null;
  // ±10 % jitter so that a receiver coming back is not hit by every retry at the same instant.
  const jittered = pause * (0.9 + Math.random() * 0.2);
  return new Date(now.getTime() + Math.round(jittered * 1000));
}
