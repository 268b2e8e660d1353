/*
 * What recording a webhook attempt carries and answers, as the statements of delivery.repository.ts
 * (their one writer) bind and read it: an attempt's outcome, the JSON list RECORDING reads, and
 * each record's answer.
 */

/** One attempt's result, recorded with the delivery's new state. */
export interface AttemptRecord {
  number: number;
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  url: string | null;
  statusCode: number | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

/** The delivery an attempt is recorded for: its id and the claim's fencing token it was made under. */
export interface RecordedDelivery {
  id: string;
  lease_token: string;
}

/** What recording an attempt answers: whether it was recorded (its claim still held), and whether a later delivery of its aggregate to the same endpoint is PENDING. */
export interface RecordOutcome {
  recorded: boolean;
  laterPending: boolean;
}

/** A row of RECORDED_OUTCOMES: a delivery written, and whether a later one of its aggregate waits. */
export interface RecordedRow {
  id: string;
  later: boolean;
}

/** The JSON list RECORDING reads. */
export const recordingOf = (records: ReadonlyArray<{ delivery: RecordedDelivery; attempt: AttemptRecord }>): string =>
  JSON.stringify(
    records.map(({ delivery, attempt }) => ({
      id: delivery.id,
      token: delivery.lease_token,
      status: attempt.status,
      attempts: attempt.number,
      url: attempt.url,
      status_code: attempt.statusCode,
      error: attempt.error,
      next_attempt_at: attempt.nextAttemptAt?.toISOString() ?? null,
      delivered_at: attempt.deliveredAt?.toISOString() ?? null,
      started_at: attempt.startedAt.toISOString(),
      duration_ms: Math.round(attempt.durationMs),
    })),
  );

/** Each record's outcome, by delivery id: not among the rows written means its claim was no longer held. */
export function recordOutcomes(
  records: ReadonlyArray<{ delivery: RecordedDelivery }>,
  answered: RecordedRow[] | string | null,
): Map<string, RecordOutcome> {
  const rows: RecordedRow[] = typeof answered === 'string' ? JSON.parse(answered) : (answered ?? []);
  const written = new Map(rows.map((row) => [row.id, row.later]));
  return new Map(
    records.map(({ delivery }) => [
      delivery.id,
      { recorded: written.has(delivery.id), laterPending: written.get(delivery.id) ?? false },
    ]),
  );
}
