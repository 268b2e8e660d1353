/**
 * The chaos run's evidence (issue 17 item 8), as pure bookkeeping the run feeds while it drives:
 * webhook order per aggregate at the merchant's receiver, the statuses each sampled
 * subscription saw, the client's requests and their retries, and the table printed at the end.
 * No I/O here, so each check can be tested on its own (test/chaos/evidence.spec.ts).
 */

/** The value below which `p` (0-100) percent of `values` lie (nearest rank); undefined for none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * The aggregate a webhook envelope belongs to (API-CONTRACT "Webhook headers": `sequence` counts
 * the events of one session, consent, payment order or mandate; a mandate's charges share the
 * mandate; a refund's events have an aggregate of their own, not its session's). Undefined for an
 * envelope that names none.
 */
export function aggregateOf(envelope: { event?: string; data?: Record<string, unknown> }): string | undefined {
  const data = envelope.data ?? {};
  const kind = envelope.event ?? '';
  const id = (key: string) => (typeof data[key] === 'string' ? `${key}:${data[key] as string}` : undefined);
  if (kind.startsWith('refund.')) return id('refund_id');
  if (kind.startsWith('payment_order.')) return id('payment_order_id');
  if (kind.startsWith('consent.')) return id('consent_id');
  if (kind.startsWith('mandate.')) return id('mandate_id');
  if (kind.startsWith('payment.')) return id('session_id');
  return id('payment_order_id') ?? id('mandate_id') ?? id('session_id') ?? id('consent_id');
}

/**
 * What a merchant's receiver checks of the delivery guarantee (at least once, in order per
 * aggregate): a delivery with a sequence lower than one already received for its aggregate is out
 * of order, unless it is an event received before (a redelivery of the same event id, which at
 * least once allows: counted apart).
 */
export class WebhookOrder {
  deliveries = 0;
  /** A second (third, ...) arrival of an event id already received. */
  redeliveries = 0;
  /** A new event whose sequence is below one already received for its aggregate. */
  outOfOrder = 0;
  /** Envelopes without a sequence or an aggregate (the contract says every one has both). */
  withoutSequence = 0;
  readonly examples: string[] = [];
  /** Out of order by the aggregate's kind (`refund_id`, `session_id`, ...). */
  private readonly outOfOrderByKind = new Map<string, number>();
  private readonly highest = new Map<string, number>();
  private readonly seen = new Set<string>();

  record(envelope: { id?: string; event?: string; sequence?: unknown; data?: Record<string, unknown> }): void {
    this.deliveries += 1;
    const id = String(envelope.id);
    if (this.seen.has(id)) {
      this.redeliveries += 1;
      return;
    }
    this.seen.add(id);
    const aggregate = aggregateOf(envelope);
    if (aggregate === undefined || typeof envelope.sequence !== 'number') {
      this.withoutSequence += 1;
      return;
    }
    const highest = this.highest.get(aggregate);
    if (highest !== undefined && envelope.sequence < highest) {
      this.outOfOrder += 1;
      const kind = kindOf(aggregate);
      this.outOfOrderByKind.set(kind, (this.outOfOrderByKind.get(kind) ?? 0) + 1);
      if (this.examples.length < 5)
        this.examples.push(`${aggregate}: ${envelope.event} #${envelope.sequence} after #${highest}`);
      return;
    }
    this.highest.set(aggregate, envelope.sequence);
  }

  /** Aggregates with at least one delivery. */
  get aggregates(): number {
    return this.highest.size;
  }

  /** One kind of aggregate (`refund_id`: refunds): how many had a delivery, and the new events that came out of order. */
  of(kind: string): { aggregates: number; outOfOrder: number } {
    const aggregates = [...this.highest.keys()].filter((aggregate) => kindOf(aggregate) === kind).length;
    return { aggregates, outOfOrder: this.outOfOrderByKind.get(kind) ?? 0 };
  }
}

/** `refund_id:rfd_1` -> `refund_id`. */
const kindOf = (aggregate: string): string => aggregate.slice(0, aggregate.indexOf(':'));

/** A session's statuses in the order they can follow each other (the three final ones share the last place). */
const STATUS_RANK: Record<string, number> = {
  PENDING: 0,
  PROCESSING: 1,
  SETTLEMENT_PENDING: 2,
  COMPLETED: 3,
  FAILED: 3,
  EXPIRED: 3,
};
export const FINAL_SESSION_STATUSES: ReadonlySet<string> = new Set(['COMPLETED', 'FAILED', 'EXPIRED']);

/**
 * What one subscriber of paymentSessionUpdated(id) must see (issue 17 item 6): within one
 * connection every status once and only forwards. A new connection starts with the session's
 * current state, so its first status may equal the last one received before (the snapshot); it
 * may never be older.
 */
export class SubscriptionOrder {
  /** The statuses received, a `|` where a new connection began. */
  readonly seen: string[] = [];
  repeated = 0;
  backwards = 0;
  connections = 0;
  private last: string | undefined;
  private firstOfConnection = false;

  /** A new connection (the first one included) is about to deliver messages. */
  connected(): void {
    if (this.connections > 0) this.seen.push('|');
    this.connections += 1;
    this.firstOfConnection = true;
  }

  status(status: string): void {
    const snapshot = this.firstOfConnection;
    this.firstOfConnection = false;
    this.seen.push(status);
    const last = this.last;
    this.last = status;
    if (last === undefined) return;
    if (status === last) {
      // The state sent at the start of a new connection, equal to what the last one ended with.
      if (!(snapshot && this.connections > 1)) this.repeated += 1;
      return;
    }
    if ((STATUS_RANK[status] ?? -1) <= (STATUS_RANK[last] ?? -1)) this.backwards += 1;
  }

  get lastStatus(): string | undefined {
    return this.last;
  }

  get final(): boolean {
    return this.last !== undefined && FINAL_SESSION_STATUSES.has(this.last);
  }
}

/** Why an attempt of a client request was not answered usefully: a bank core's fault the run injected, or the platform. */
export type FailureCause = 'bank' | 'platform';

/** An answer a client retries: none (status 0), 5xx, 429, or 409 IDEMPOTENCY_KEY_IN_USE (the first request with the key still runs). */
export function isRetryable(answer: { status: number; body?: any }): boolean {
  if (answer.status === 0 || answer.status >= 500 || answer.status === 429) return true;
  return answer.status === 409 && answer.body?.error?.code === 'IDEMPOTENCY_KEY_IN_USE';
}

/** A bank core's error (CBS_TIMEOUT, CBS_ERROR) is the injected fault's, not the platform's. */
export function causeOf(answer: { status: number; body?: any }): FailureCause {
  const code = String(answer.body?.error?.code ?? '');
  return code.startsWith('CBS_') ? 'bank' : 'platform';
}

/**
 * The client's side: every request to the public address, how many attempts it took, and which
 * ones were still unanswered after one retry (issue 17: a client that retries once learns the
 * truth) or for good.
 */
export class ClientRequests {
  requests = 0;
  retriedOnce = 0;
  /** Requests whose first two attempts both failed, by what caused the failures (platform if any one was the platform's). */
  readonly failedAfterOneRetry: Record<FailureCause, number> = { bank: 0, platform: 0 };
  /** Still failing after every attempt. */
  readonly failedForGood: Record<FailureCause, number> = { bank: 0, platform: 0 };
  /** Failed attempts by call and answer (`authorize 503 CBS_TIMEOUT`), for the requests that failed after one retry. */
  readonly causes: Record<string, number> = {};

  /** One request's attempts, each answer in order; `gaveUp`: the last one still failed. */
  record(call: string, failures: ReadonlyArray<{ status: number; body?: any }>, gaveUp: boolean): void {
    this.requests += 1;
    if (failures.length === 1 && !gaveUp) this.retriedOnce += 1;
    if (failures.length < 2) return;
    const cause: FailureCause = failures.some((answer) => causeOf(answer) === 'platform') ? 'platform' : 'bank';
    this.failedAfterOneRetry[cause] += 1;
    if (gaveUp) this.failedForGood[cause] += 1;
    for (const answer of failures) {
      const key = `${call} ${answer.status}${answer.body?.error?.code ? ` ${answer.body.error.code}` : ''}`;
      this.causes[key] = (this.causes[key] ?? 0) + 1;
    }
  }
}

/**
 * One row of the closing table: a figure with its target. An invariant's miss fails the run
 * (PASS / FAIL); a target is printed met / NOT met; a plain figure has no verdict.
 */
export interface EvidenceRow {
  figure: string;
  value: string;
  target: string;
  kind: 'invariant' | 'target' | 'figure';
  ok: boolean;
}

const verdictOf = (row: EvidenceRow): string =>
  row.kind === 'invariant' ? (row.ok ? 'PASS' : 'FAIL') : row.kind === 'target' ? (row.ok ? 'met' : 'NOT met') : '';

/** The closing table as lines (a Markdown table with padded columns), with a verdict per row. */
export function evidenceTable(rows: readonly EvidenceRow[]): string[] {
  const cells = [
    ['figure', 'value', 'target', 'verdict'],
    ...rows.map((row) => [row.figure, row.value, row.target, verdictOf(row)]),
  ];
  const widths = [0, 1, 2, 3].map((column) => Math.max(...cells.map((cell) => cell[column]!.length)));
  const line = (cell: string[]) => `| ${cell.map((text, column) => text.padEnd(widths[column]!)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)];
}

/** Milliseconds as seconds with one decimal ("-" for none). */
export const seconds = (ms: number | undefined): string => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);
