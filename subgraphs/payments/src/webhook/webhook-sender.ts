import { Agent, request } from 'undici';
import { timeoutSignal, type EgressPolicy } from '@gateway/kernel';
import { guardedLookup, RefusedTargetError } from './webhook-target';

export interface AttemptOutcome {
  /** The receiver's status; undefined when no answer came. */
  statusCode?: number;
  /** Why no answer came (timeout, refused, unsafe target). Never includes the secret or body. */
  error?: string;
  durationMs: number;
}

export interface WebhookSender {
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

/** Longest a receiver may take for the whole answer (API-CONTRACT: 2xx within 10 seconds). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
/** A receiver's answer body is read only this far: it means nothing to us. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * HTTP for webhook attempts: its own connection pool (no redirects followed, so a receiver cannot
 * bounce us elsewhere), a deadline per attempt, and every connection to a name through the
 * guarded DNS lookup, in every mode (literal addresses are judged before: deliveryTargetProblem).
 */
export function createWebhookSender(options: { policy: EgressPolicy; timeoutMs?: number }): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const agent = new Agent({
    connect: { timeout: timeoutMs, lookup: guardedLookup(options.policy) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    connections: 16,
  });
  return {
    async post(url, body, headers) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const deadline = timeoutSignal(timeoutMs);
      try {
        const response = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
          signal: deadline.signal,
        });
        let read = 0;
        for await (const chunk of response.body) {
          read += (chunk as Buffer).length;
          if (read > MAX_ANSWER_BYTES) {
            response.body.destroy();
            break;
          }
        }
        return { statusCode: response.statusCode, durationMs: elapsed() };
      } catch (error) {
        return { error: describe(error, timeoutMs), durationMs: elapsed() };
      } finally {
        deadline.clear();
      }
    },
    // destroy, not close: a shutdown does not wait for slow receivers (their leases lapse).
    close: () => agent.destroy(),
  };
}

function describe(error: unknown, timeoutMs: number): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  if (cause instanceof RefusedTargetError || error instanceof RefusedTargetError) return (cause as Error).message;
  const name = (error as Error).name;
  const code = (error as { code?: string }).code ?? (cause as { code?: string }).code;
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `no answer within ${timeoutMs} ms`;
  }
  return code ? `connection failed (${code})` : 'connection failed';
}
