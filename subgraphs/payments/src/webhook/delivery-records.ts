import type { AttemptRecord, ClaimedDelivery, RecordOutcome } from './delivery.repository';

/**
 * How long a delivered attempt's record waits for the dispatcher's next intake to ride on before
 * it is written by a statement of its own. A session's events come close together (initiated,
 * then processing and completed within the authorization), so the record of one nearly always
 * rides on the next one's intake (issue 32: statements per payment). Well within the claim's
 * lease (seconds), which the record must still hold.
 */
export const RECORD_RIDES_WITHIN_MS = 100;

/** An attempt's outcome waiting to be written, and who waits for it. */
export interface PendingRecord {
  delivery: ClaimedDelivery;
  attempt: AttemptRecord;
  settle: (outcome: RecordOutcome) => void;
  fail: (error: unknown) => void;
}

/**
 * The records of delivered attempts not written yet: taken by the next intake (`take`, then
 * `rode` or `putBack` as its statement succeeded or failed), or written together by a statement
 * of their own (`writeAlone`) after RECORD_RIDES_WITHIN_MS. Until then the delivery stays PENDING under its claim: a crash
 * sends it again once the claim lapses (webhooks are at least once, same event id), and a later
 * event of its session waits for the record as it waits for an attempt in flight. A record that a
 * later delivery is known to wait behind (`urgent`) is written at once.
 */
export class RidingRecords {
  private pending: PendingRecord[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly writeAlone: (records: PendingRecord[]) => Promise<ReadonlyMap<string, RecordOutcome>>,
    private readonly withinMs = RECORD_RIDES_WITHIN_MS,
  ) {}

  /** Resolves once the record is written (riding or alone): whether it was recorded, and whether a later delivery waits. */
  record(delivery: ClaimedDelivery, attempt: AttemptRecord, urgent = false): Promise<RecordOutcome> {
    return new Promise<RecordOutcome>((settle, fail) => {
      this.pending.push({ delivery, attempt, settle, fail });
      if (urgent) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.withinMs).unref();
    });
  }

  /** The records a statement about to be sent carries. */
  take(): PendingRecord[] {
    const taken = this.pending;
    this.pending = [];
    this.stopTimer();
    return taken;
  }

  /** The statement that carried `taken` succeeded: each record's outcome as it answered. */
  rode(taken: PendingRecord[], outcomes: ReadonlyMap<string, RecordOutcome>): void {
    for (const record of taken)
      record.settle(outcomes.get(record.delivery.id) ?? { recorded: false, laterPending: false });
  }

  /** The statement that carried `taken` failed (nothing of it was written): they wait for the next one. */
  putBack(taken: PendingRecord[]): void {
    if (taken.length === 0) return;
    this.pending.unshift(...taken);
    this.timer ??= setTimeout(() => void this.flush(), this.withinMs).unref();
  }

  /** Writes every waiting record now, in one statement of their own (stop, the timer, an urgent one). */
  async flush(): Promise<void> {
    const taken = this.take();
    if (taken.length === 0) return;
    try {
      this.rode(taken, await this.writeAlone(taken));
    } catch (error) {
      for (const record of taken) record.fail(error);
    }
  }

  private stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
