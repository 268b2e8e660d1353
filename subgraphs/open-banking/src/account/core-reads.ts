import { GatewayError } from '@gateway/kernel';

/** Bank-core calls one GraphQL request may make by default (OB_MAX_CORE_CALLS_PER_REQUEST). */
export const DEFAULT_MAX_CORE_CALLS_PER_REQUEST = 10;

/**
 * The bank-core reads of one request: each distinct read (an account, a statement for a window)
 * is made once and shared by every field asking for it, so aliases of the same field on the same
 * account cost the core one call; and at most `maxCalls` calls in all, the next one refused with
 * RATE_LIMITED before it reaches the core. A document's selections are priced at the router
 * (its `@cost`), but what a list multiplies (a statement per account) only shows here.
 */
export class RequestCoreReads {
  private calls = 0;
  private readonly reads = new Map<string, Promise<unknown>>();

  constructor(
    readonly requestId: string,
    private readonly maxCalls: number,
  ) {}

  /** The read under `key`: made now (counted), or the one this request already made. */
  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    const made = this.reads.get(key);
    if (made) return made as Promise<T>;
    if (this.calls >= this.maxCalls) {
      throw new GatewayError(
        'RATE_LIMITED',
        `this request asks the bank core for more than ${this.maxCalls} reads (one per account and one per account and statement window): split it`,
      );
    }
    this.calls += 1;
    const pending = read();
    this.reads.set(key, pending);
    return pending;
  }
}

/** One RequestCoreReads per request, found by the request's context object (the same for all its resolvers). */
export function coreReadsPerRequest(maxCalls: number): (context: { requestId: string }) => RequestCoreReads {
  const byRequest = new WeakMap<object, RequestCoreReads>();
  return (context) => {
    let reads = byRequest.get(context);
    if (!reads) {
      reads = new RequestCoreReads(context.requestId, maxCalls);
      byRequest.set(context, reads);
    }
    return reads;
  };
}
