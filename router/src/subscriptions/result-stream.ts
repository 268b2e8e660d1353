import type { ExecutionResult } from 'graphql';
import type { SubscriberSink } from './subscription-hub';
import type { TrackedResult } from './subscription-plan';

/** A subscriber that reads slower than events come keeps at most this many; the oldest go first. */
const MAX_BUFFERED = 100;

interface Queued {
  result: ExecutionResult;
  rank: number;
}

/**
 * One subscriber's stream for graphql-ws: results pushed by the hub, read with `for await`.
 * Statuses only move forward, so the stream sends a message only when its status is later than
 * the last one it accepted: the state read at subscription time and an event that crossed it
 * (the creation event of a session being watched from its first moment, a redelivery, a bus
 * that reorders) are never seen twice or out of order. Ends after a final status, or when the
 * client goes away (graphql-ws calls return()), which also unregisters it.
 */
export class ResultStream implements SubscriberSink, AsyncIterableIterator<ExecutionResult> {
  private readonly buffer: Queued[] = [];
  private waiting?: (result: IteratorResult<ExecutionResult>) => void;
  /** Rank of the latest status accepted (sent or queued); -1 before the first. */
  private lastRank = -1;
  private ending = false;
  private done = false;
  onClose: () => void = () => undefined;

  /** Statuses of this rank end the stream. */
  private readonly finalRank: number;

  /** `statusRank`: the plan's order of statuses; its highest rank is final. */
  constructor(private readonly statusRank: ReadonlyMap<string, number>) {
    // A view (no statuses) has no final state: it ends only with its subscriber.
    this.finalRank = statusRank.size ? Math.max(...statusRank.values()) : Number.POSITIVE_INFINITY;
  }

  push({ result, status }: TrackedResult): void {
    if (this.done || this.ending) return;
    const rank = this.rankOf(status);
    // Unknown status (not selected, or a query error): nothing to order by, so it passes.
    if (rank !== undefined && rank <= this.lastRank) return;
    this.accept(result, rank ?? this.lastRank);
  }

  /**
   * The state at subscription time. The hub may already have queued events that were in flight
   * when the query ran: those no later than this state go, the later ones stay behind it.
   */
  pushFirst({ result, status }: TrackedResult): void {
    if (this.done) return;
    const rank = this.rankOf(status) ?? -1;
    const later = this.buffer.filter((queued) => queued.rank > rank);
    this.buffer.length = 0;
    this.lastRank = -1;
    this.ending = false;
    this.accept(result, rank);
    for (const queued of later) this.accept(queued.result, queued.rank);
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const queued = this.buffer.shift();
    if (queued) return Promise.resolve({ value: queued.result, done: false });
    if (this.done || this.ending) return this.return();
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    if (!this.done) {
      this.done = true;
      this.buffer.length = 0;
      this.onClose();
      this.waiting?.({ value: undefined, done: true });
      this.waiting = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<ExecutionResult>> {
    return this.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private rankOf(status: string | undefined): number | undefined {
    return status === undefined ? undefined : this.statusRank.get(status);
  }

  private accept(result: ExecutionResult, rank: number): void {
    this.lastRank = Math.max(this.lastRank, rank);
    if (rank >= this.finalRank) this.ending = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: result, done: false });
      return;
    }
    this.buffer.push({ result, rank });
    if (this.buffer.length > MAX_BUFFERED) this.buffer.shift();
  }
}
