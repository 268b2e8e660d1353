/**
 * Sending a request again when that cannot do its work twice: a GET or DELETE, or a creating POST
 * that carries an Idempotency-Key (the platform answers a repeated key with the first answer).
 * Retried: no answer (connection failure, per-attempt timeout), 5xx, 409 IDEMPOTENCY_KEY_IN_USE
 * (the first attempt is still running) and 429 when Retry-After is within the backoff bound. Any
 * other request (a POST without a key, a PATCH) is sent exactly once.
 */
export interface RetryPolicy {
  /** Attempts after the first (default 2). 0 turns retries off. */
  maxRetries: number;
  /** First backoff delay (default 500 ms); doubled on each attempt, with jitter. */
  baseDelayMs: number;
  /** Longest wait between attempts (default 8 s); also the longest Retry-After honoured. */
  maxDelayMs: number;
  /** Deadline of one attempt (default 30 s); a timed-out attempt counts as no answer. */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  timeoutMs: 30_000,
};

export type FetchFunction = (request: Request) => Promise<Response>;

export interface RetryingFetchOptions {
  policy: RetryPolicy;
  fetch: FetchFunction;
  /** Whether this request may be sent more than once. */
  retrySafe(request: Request): boolean;
  /** Injected by tests; real timers otherwise. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Told of each attempt that will be retried (logging, metrics). */
  onRetry?: (event: { attempt: number; delayMs: number; reason: string; request: Request }) => void;
}

/** A network failure that used up every attempt; the client turns it into GatewayConnectionError. */
export class AttemptsExhausted extends Error {
  constructor(
    readonly attempts: number,
    readonly lastError: unknown,
  ) {
    super(`no answer after ${attempts} attempt(s): ${describe(lastError)}`, { cause: lastError });
  }
}

const describe = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string } })?.cause;
  if ((error as Error)?.name === 'TimeoutError') return 'attempt timed out';
  return cause?.code ?? (error as Error)?.message ?? String(error);
};

/** Full backoff: base·2^(attempt-1), capped, with half of it random so that clients spread out. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Why an answer is worth another attempt, or undefined to hand it back as it is. */
async function retryReason(response: Response, policy: RetryPolicy): Promise<string | undefined> {
  if (response.status >= 500) return `status ${response.status}`;
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after') ?? 0);
    return seconds * 1000 <= policy.maxDelayMs ? 'rate limited' : undefined;
  }
  if (response.status === 409) {
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: { code?: string } } | undefined;
    return body?.error?.code === 'IDEMPOTENCY_KEY_IN_USE' ? 'idempotency key in use' : undefined;
  }
  return undefined;
}

export function retryingFetch(options: RetryingFetchOptions): FetchFunction {
  const { policy } = options;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;

  return async (request) => {
    const attempts = options.retrySafe(request) ? policy.maxRetries + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      // Each attempt sends its own copy: a body can be read only once.
      const copy = new Request(last ? request : request.clone(), {
        signal: AbortSignal.any([request.signal, AbortSignal.timeout(policy.timeoutMs)]),
      });
      let reason: string;
      let retryAfterMs = 0;
      try {
        const response = await options.fetch(copy);
        const why = last ? undefined : await retryReason(response, policy);
        if (why === undefined) return response;
        reason = why;
        if (response.status === 429) retryAfterMs = Number(response.headers.get('retry-after') ?? 0) * 1000;
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        // The caller's own abort is an answer, not a failure to retry.
        if (request.signal.aborted) throw error;
        if (last) throw new AttemptsExhausted(attempt, error);
        reason = describe(error);
      }
      const delayMs = Math.max(retryAfterMs, backoffDelay(policy, attempt, random));
      options.onRetry?.({ attempt, delayMs, reason, request });
      await sleep(delayMs);
    }
  };
}
