import type { ExecutionResult } from 'graphql';
import type { SubscriberSink } from './session-hub';

/** A subscriber that reads slower than events come keeps at most this many; the oldest go first. */
const MAX_BUFFERED = 100;

/**
 * One subscriber's stream for graphql-ws: results pushed by the hub, read with `for await`.
 * Ends after a final result, or when the client goes away (graphql-ws calls return()), which
 * also unregisters it: nothing stays behind a vanished client.
 */
export class ResultStream implements SubscriberSink, AsyncIterableIterator<ExecutionResult> {
  private readonly buffer: ExecutionResult[] = [];
  private waiting?: (result: IteratorResult<ExecutionResult>) => void;
  private ending = false;
  private done = false;
  onClose: () => void = () => undefined;

  push(result: ExecutionResult, final = false): void {
    if (this.done || this.ending) return;
    if (final) this.ending = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: result, done: false });
      return;
    }
    this.buffer.push(result);
    if (this.buffer.length > MAX_BUFFERED) this.buffer.shift();
  }

  /** The state at subscription time goes before anything the hub queued meanwhile. */
  pushFirst(result: ExecutionResult, final: boolean): void {
    if (this.done) return;
    // Already final: nothing queued after it matters.
    if (final) {
      this.buffer.length = 0;
      this.ending = true;
    }
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: result, done: false });
    } else {
      this.buffer.unshift(result);
    }
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const queued = this.buffer.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
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
}
