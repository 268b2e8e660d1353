import { loadConfig, z } from '@gateway/kernel';

/** Timing of the payment engine and its jobs; every value can be set at start (tests make them short). */
export interface EngineSettings {
  /** Deadline of one core call attempt. */
  coreTimeoutMs: number;
  /** Attempts per core call (same reference each time: the core deduplicates). */
  coreAttempts: number;
  /** Deadline of one core call, retries included. */
  coreBudgetMs: number;
  /**
   * How long a step belongs to the process running it without a renewal: the run renews it every
   * third of this while it works, so a dead process's steps are taken over within leaseMs plus
   * recoveryIntervalMs (issue 17: seconds, not half a minute). Settlement positions and webhook
   * attempts in flight hold the same lease (lease/lease.ts).
   */
  leaseMs: number;
  /** Wait before trying again a step whose outcome the core left unknown, or whose bank was unreachable. */
  retryDelayMs: number;
  /**
   * Calls of a step whose outcome is unknown (the first included) before the engine reads the
   * core's statement instead of only replaying; a refused replay reads it at once.
   */
  replayLimit: number;
  /**
   * How long the engine tries to establish what the core did with a movement whose outcome is
   * unknown. Then the merchant gets a final answer (FAILED, failure_code CBS_OUTCOME_UNKNOWN)
   * and the movement needs an operator's attention.
   */
  outcomeDeadlineMs: number;
  /** A rail credit not confirmed by the creditor bank this long after booking is sent again (same reference). */
  confirmResendAfterMs: number;
  /**
   * A rail credit still not confirmed this long after booking completes the session on the
   * evidence of the booked credit (unless the creditor's statement shows it missing: then an
   * operator's attention).
   */
  confirmGiveUpAfterMs: number;
  /** How often the recovery job looks for steps whose lease ran out. */
  recoveryIntervalMs: number;
  /** How often PENDING sessions past their TTL are expired. */
  expiryIntervalMs: number;
  /** How long POST /pay/{id}/authorize waits for the engine before answering with the current status. */
  authorizeWaitMs: number;
  /** Lifetime of the sst_ session token issued on OTP success. */
  sessionTokenTtlSeconds: number;
  /** How long a bank's routing (core URL, key, limits, status) is reused: a suspended bank takes new work at most this long. */
  bankRoutingCacheMs: number;
  /** How long an alias's routing is reused: a deactivated alias stays routable at most this long. 0: always ask. */
  aliasRoutingCacheMs: number;
  /** How long an account's currency, once its core said it, is reused (account-currency/): it does not change. */
  accountCurrencyCacheMs: number;
  /** How long "the core could not say" an account's currency is reused, so a core that is down slows nobody for long. */
  accountCurrencyUnknownMs: number;
  /**
   * How long a session's or mandate's creation, or an authorization, waits for an account's
   * currency before going on without it (its answer, when it comes, is kept for the next ask).
   */
  accountCurrencyWaitMs: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  coreTimeoutMs: 4_000,
  coreAttempts: 3,
  coreBudgetMs: 6_000,
  // Takeover within 5 s (issue 17) by construction: a dead owner's lease has at most leaseMs left
  // (renewed every leaseMs/3 while it works), the next recovery tick of another instance comes
  // within recoveryIntervalMs (1 s, plus the tick's own claim statement), so 3 + 1 + a claim stays
  // under 5 s. At 4 s the bound was 5 s plus the claim: a SIGKILL evidence run measured p99 5.0 s
  // (docs/chaos.md). A database stall over 3 s can hand a live owner's step to another instance;
  // the fencing token refuses the old owner's writes and the core deduplicates by reference.
  leaseMs: 3_000,
  retryDelayMs: 5_000,
  replayLimit: 3,
  outcomeDeadlineMs: 10 * 60_000,
  confirmResendAfterMs: 2 * 60_000,
  confirmGiveUpAfterMs: 60 * 60_000,
  recoveryIntervalMs: 1_000,
  expiryIntervalMs: 5_000,
  // Verification plus this stays under the router's 15 s per subgraph call.
  authorizeWaitMs: 7_000,
  sessionTokenTtlSeconds: 3_600,
  // A bank suspension is obeyed by new work within this (API-CONTRACT "Operator controls"); still one call a second per bank at most.
  bankRoutingCacheMs: 1_000,
  aliasRoutingCacheMs: 1_000,
  accountCurrencyCacheMs: 60 * 60_000,
  accountCurrencyUnknownMs: 10_000,
  // Session creation stays fast: a core slower than this is not waited for.
  accountCurrencyWaitMs: 1_000,
};

const seconds = z.coerce.number().int().min(1);

/** The engine timings an operator sets (seconds): how long an unknown outcome or a silent creditor bank is waited for. */
const engineEnv = z.object({
  PAYMENT_OUTCOME_DEADLINE_SECONDS: seconds.optional(),
  RAIL_CONFIRM_RESEND_SECONDS: seconds.optional(),
  RAIL_CONFIRM_GIVE_UP_SECONDS: seconds.optional(),
});

/** Engine settings from the environment (unset: the defaults); a bad value refuses the start. */
export function engineSettingsFromEnv(env: Record<string, string | undefined> = process.env): Partial<EngineSettings> {
  const config = loadConfig(engineEnv, env);
  const ms = (value: number | undefined) => (value === undefined ? undefined : value * 1000);
  const settings = {
    outcomeDeadlineMs: ms(config.PAYMENT_OUTCOME_DEADLINE_SECONDS),
    confirmResendAfterMs: ms(config.RAIL_CONFIRM_RESEND_SECONDS),
    confirmGiveUpAfterMs: ms(config.RAIL_CONFIRM_GIVE_UP_SECONDS),
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}
