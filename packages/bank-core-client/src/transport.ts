import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import {
  isEgressRefusal,
  mayTarget,
  TARGET_REFUSED,
  timeoutSignal,
  type EgressPolicy,
  type Logger,
} from '@gateway/kernel';
import { BankCoreError, type FailureReason } from './errors';
import type { BankCoreMetrics } from './metrics';
import { errorAnswer } from './schemas';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface TransportOptions {
  bankHandle: string;
  baseUrl: string;
  internalKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  totalBudgetMs: number;
  dispatcher: Dispatcher;
  metrics: BankCoreMetrics;
  logger: Logger;
  /** Where calls may connect; unset: anywhere (see BankCoreClientOptions.egress). */
  egress?: EgressPolicy;
}

export interface CallSpec {
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  requestId: string;
  /**
   * 'transient': retry 5xx, timeouts and connection failures (safe: the core deduplicates by
   * reference, or the call only reads). 'unsent': retry only when the request surely never
   * reached the core (connection refused), for calls the core cannot deduplicate.
   */
  retryOn: 'transient' | 'unsent';
}

/** A final answer below 500: the caller interprets 2xx, 3xx and 4xx. */
export interface CoreAnswer {
  status: number;
  /** Parsed JSON; the raw text when it is not JSON; null when empty. */
  body: unknown;
  attempts: number;
  /**
   * An earlier attempt of this call may have reached the core (it timed out, broke mid-answer or
   * answered 5xx): a refusal now may be the core refusing what it already did.
   */
  ambiguousBefore: boolean;
}

interface Failure {
  reason: Extract<FailureReason, 'timeout' | 'unreachable' | 'server_error'>;
  /** The request never left this process (connection refused or not resolvable). */
  unsent: boolean;
  /** The egress policy refused the target: nothing was sent, and trying again changes nothing. */
  refused?: boolean;
  status?: number;
  coreCode?: string;
  message: string;
}

/** Leave an attempt at least this long, or do not start it. */
const MIN_ATTEMPT_MS = 50;
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Sends one logical call: an attempt timeout on each try, exponential backoff with full jitter
 * between tries, everything inside a total budget. Never retries an answer below 500.
 */
export class Transport {
  /** The base URL's host is a literal (or localhost) the egress policy refuses: no attempt connects. */
  private readonly hostRefused: boolean;

  constructor(private readonly options: TransportOptions) {
    this.hostRefused = options.egress !== undefined && !mayTarget(new URL(options.baseUrl).hostname, options.egress);
  }

  async send(spec: CallSpec): Promise<CoreAnswer> {
    const { retry, timeoutMs, totalBudgetMs, bankHandle } = this.options;
    const deadline = Date.now() + totalBudgetMs;
    let ambiguousBefore = false;
    for (let attempt = 1; ; attempt += 1) {
      const attemptTimeout = Math.max(1, Math.min(timeoutMs, deadline - Date.now()));
      const outcome = await this.attempt(spec, attemptTimeout);
      if (!('reason' in outcome)) return { ...outcome, attempts: attempt, ambiguousBefore };
      const failure = outcome;
      if (!failure.unsent) ambiguousBefore = true;

      const retryable = !failure.refused && (spec.retryOn === 'transient' || failure.unsent);
      const delay = Math.floor(Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)));
      const exhausted = attempt >= retry.attempts || Date.now() + delay + MIN_ATTEMPT_MS > deadline;
      if (!retryable || exhausted) throw this.finalError(spec, failure, attempt);

      this.options.metrics.retries.inc({ bank: bankHandle, operation: spec.operation, reason: failure.reason });
      this.options.logger.warn(
        {
          bank: bankHandle,
          operation: spec.operation,
          request_id: spec.requestId,
          attempt,
          outcome: failure.reason,
          status: failure.status,
          retry_in_ms: delay,
        },
        'bank core attempt failed; retrying',
      );
      await sleep(delay);
    }
  }

  private async attempt(spec: CallSpec, timeoutMs: number): Promise<{ status: number; body: unknown } | Failure> {
    if (this.hostRefused) return REFUSED;
    const { signal, clear } = timeoutSignal(timeoutMs);
    try {
      const response = await request(`${this.options.baseUrl}${spec.path}`, {
        method: spec.method,
        headers: {
          accept: 'application/json',
          'x-service-internal-key': this.options.internalKey,
          'x-request-id': spec.requestId,
          ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
        signal,
        dispatcher: this.options.dispatcher,
      });
      // The body is read under the same deadline: a core that stalls mid-answer is a timeout too.
      const text = await response.body.text();
      const body = parseJson(text);
      if (response.statusCode >= 500) {
        const coreCode = errorCodeOf(body);
        return {
          reason: 'server_error',
          unsent: false,
          status: response.statusCode,
          ...(coreCode ? { coreCode } : {}),
          message: `answered ${response.statusCode}${coreCode ? ` ${coreCode}` : ''}`,
        };
      }
      return { status: response.statusCode, body };
    } catch (error) {
      return classify(error, signal, timeoutMs);
    } finally {
      clear();
    }
  }

  private finalError(spec: CallSpec, failure: Failure, attempts: number): BankCoreError {
    const code = failure.reason === 'server_error' ? 'CBS_ERROR' : 'CBS_TIMEOUT';
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    return new BankCoreError(
      code,
      `bank core ${this.options.bankHandle} ${spec.operation}: ${failure.message} (${tries})`,
      {
        bankHandle: this.options.bankHandle,
        operation: spec.operation,
        reason: failure.reason,
        attempts,
        ...(failure.status !== undefined ? { coreStatus: failure.status } : {}),
        ...(failure.coreCode !== undefined ? { coreCode: failure.coreCode } : {}),
      },
    );
  }
}

/**
 * A target the egress policy refuses, before any connection (a literal host) or at the guarded
 * lookup (a name resolving to a refused address): an unreachable core, in one wording whatever
 * the address, so the answer probes nothing.
 */
const REFUSED: Failure = { reason: 'unreachable', unsent: true, refused: true, message: TARGET_REFUSED };

function classify(error: unknown, signal: AbortSignal, timeoutMs: number): Failure {
  if (isEgressRefusal(error)) return REFUSED;
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code;
  if (
    signal.aborted ||
    err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    (code?.startsWith('UND_ERR_') && code.endsWith('TIMEOUT'))
  ) {
    return { reason: 'timeout', unsent: false, message: `no answer within ${timeoutMs} ms` };
  }
  return {
    reason: 'unreachable',
    unsent: code !== undefined && UNSENT_CODES.has(code),
    message: `unreachable (${code ?? err.message ?? 'connection failed'})`,
  };
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The refusal code of an answer: error.code, code, or error when it is a string (schemas.ts errorAnswer). */
export function errorCodeOf(body: unknown): string | undefined {
  const read = readError(body);
  if (!read) return undefined;
  const nested = typeof read.error === 'object' ? read.error.code : undefined;
  const code = nested ?? read.code ?? (typeof read.error === 'string' ? read.error : undefined);
  return code?.trim() ? code.trim() : undefined;
}

/** message, error.message or error_description; a non-JSON body's first 200 characters. */
export function errorMessageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body ? body.slice(0, 200) : undefined;
  const read = readError(body);
  if (!read) return undefined;
  return read.message ?? (typeof read.error === 'object' ? read.error.message : undefined) ?? read.error_description;
}

function readError(body: unknown) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const parsed = errorAnswer.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}
