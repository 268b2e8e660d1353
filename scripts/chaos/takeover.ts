import type { Database } from '@gateway/db';
import { DEFAULT_ENGINE_SETTINGS } from '@gateway/subgraph-payments';

/** Steps whose run renews its lease while it works (subgraphs/payments/src/engine/engine.ts, RENEWED_STEPS). */
const HELD_STEPS = ['debit', 'resolve_debit', 'credit', 'reverse'];
/** How often a watched execution row is read. */
const POLL_MS = 100;
/** A row that shows no sign of anyone working on it this long after a kill is counted as not moved. */
const GIVE_UP_MS = 120_000;

interface Row {
  movement_id: string;
  step: string;
  lease_token: string | null;
  lease_until: Date;
  updated_at: Date;
}

/** What became of one payment held at a kill. */
export interface TakeoverSample {
  sessionId: string;
  /** taken over: another owner claimed it (new fencing token); moved by its owner: a live owner recorded its step; not moved: nothing within GIVE_UP_MS. */
  how: 'taken over' | 'moved by its owner' | 'not moved';
  /** From the kill (or the owner's last renewal after it, for a draining instance) until it next moved. */
  ms: number;
  signal: string;
}

/**
 * Takeover after a kill of a payments instance (issue 17 item 2: work held by an instance that
 * dies is picked up by another in ≤ 5 s). Just before the signal, the run reads the payments held
 * by a live run: execution rows in a step that renews its lease, with a lease that runs out within
 * one lease length (a row postponed to a later retry, whose lease is the retry delay set by its
 * last record, is held by nobody and left out). Which instance holds which row is not recorded,
 * so each row is then watched (every 100 ms) until its next sign of life:
 * - its fencing token changed: another instance took it over; the time is the claim's (its new
 *   lease minus one lease length, or the step it recorded right after, whichever is earlier);
 * - its step was recorded under the same token: a live owner moved it (the other instance's
 *   work, or the draining one's), not a takeover;
 * - only its lease was renewed: its owner is alive and working (a draining instance after
 *   SIGTERM); it is watched on, from that renewal.
 * The figure is "taken over" and "not moved": the time from the kill, or from the last renewal
 * seen after it, until another instance moved the payment.
 */
export class TakeoverWatch {
  readonly samples: TakeoverSample[] = [];
  private readonly watching: Promise<void>[] = [];
  private readonly leaseMs = DEFAULT_ENGINE_SETTINGS.leaseMs;
  private readonly retryDelayMs = DEFAULT_ENGINE_SETTINGS.retryDelayMs;

  constructor(private readonly knex: Database['knex']) {}

  /** Reads the held payments (call just before the signal); `watch` with the kill's time after it. */
  async held(): Promise<Row[]> {
    const now = Date.now();
    const rows: Row[] = await this.knex('payments.payment_executions')
      .whereIn('step', HELD_STEPS)
      .where('lease_until', '>', new Date(now))
      .where('lease_until', '<=', new Date(now + this.leaseMs + 250))
      .select('movement_id', 'step', 'lease_token', 'lease_until', 'updated_at');
    // A postponed step: its last record set the lease to the retry delay (nobody works on it until then).
    return rows.filter(
      (row) => Math.abs(row.lease_until.getTime() - row.updated_at.getTime() - this.retryDelayMs) > 25,
    );
  }

  /**
   * The held payments, waiting up to `waitMs` for at least one (polled every 100 ms): a kill of a
   * payments instance is timed to meet payments mid-step, or there is nothing to take over.
   */
  async heldSoon(waitMs: number): Promise<Row[]> {
    const until = Date.now() + waitMs;
    for (;;) {
      const rows = await this.held();
      if (rows.length > 0 || Date.now() >= until) return rows;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  watch(rows: Row[], killedAt: number, signal: string): void {
    if (rows.length > 0) this.watching.push(this.follow(rows, killedAt, signal));
  }

  /** Resolves once every watched row has its answer. */
  async settled(): Promise<void> {
    await Promise.all(this.watching);
  }

  private async follow(rows: Row[], killedAt: number, signal: string): Promise<void> {
    const open = new Map(rows.map((row) => [row.movement_id, { row, aliveAt: killedAt }]));
    while (open.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      let now: Row[];
      try {
        now = await this.knex('payments.payment_executions')
          .whereIn('movement_id', [...open.keys()])
          .select('movement_id', 'step', 'lease_token', 'lease_until', 'updated_at');
      } catch {
        continue; // the database is briefly busy: read again
      }
      const found = new Map(now.map((row) => [row.movement_id, row]));
      for (const [sessionId, watched] of open) {
        const row = found.get(sessionId);
        if (!row) {
          if (Date.now() - watched.aliveAt > GIVE_UP_MS) open.delete(sessionId);
          continue;
        }
        const before = watched.row;
        const recorded = row.updated_at.getTime() !== before.updated_at.getTime();
        if (row.lease_token !== before.lease_token) {
          const claimedAt = Math.min(
            row.lease_until.getTime() - this.leaseMs,
            recorded ? row.updated_at.getTime() : Infinity,
          );
          this.samples.push({
            sessionId: row.movement_id,
            how: 'taken over',
            ms: Math.max(0, claimedAt - watched.aliveAt),
            signal,
          });
          open.delete(row.movement_id);
        } else if (recorded || row.step !== before.step) {
          this.samples.push({
            sessionId: row.movement_id,
            how: 'moved by its owner',
            ms: Math.max(0, row.updated_at.getTime() - killedAt),
            signal,
          });
          open.delete(row.movement_id);
        } else if (row.lease_until.getTime() !== before.lease_until.getTime()) {
          // Renewed by its owner (alive, draining): a takeover, if any, counts from here.
          open.set(row.movement_id, {
            row,
            aliveAt: Math.max(watched.aliveAt, row.lease_until.getTime() - this.leaseMs),
          });
        } else if (Date.now() - watched.aliveAt > GIVE_UP_MS) {
          this.samples.push({ sessionId: row.movement_id, how: 'not moved', ms: Date.now() - watched.aliveAt, signal });
          open.delete(row.movement_id);
        }
      }
    }
  }

  /** Takeover times (ms): the payments another instance took over, and those nobody moved (at their give-up time). */
  get takeoverMs(): number[] {
    return this.samples.filter((sample) => sample.how !== 'moved by its owner').map((sample) => sample.ms);
  }
}
