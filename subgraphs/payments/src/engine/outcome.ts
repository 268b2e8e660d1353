import { BankCoreError } from '@gateway/bank-core-client';
import { GatewayError, type ErrorCode, type Logger } from '@gateway/kernel';

/**
 * What a core call's failure means for the money:
 * - refused: the core answered and did not book (INSUFFICIENT_FUNDS, a 4xx), or nothing was sent
 *   (the bank no longer participates)
 * - unknown: the call may have been booked (timeout, 5xx, unreadable answer): only a replay of the
 *   same reference, which the core deduplicates, tells
 * - unavailable: nothing reached the core (the directory could not be asked); try again later
 */
export type CallOutcome<T> =
  { ok: true; value: T } | { ok: false; kind: 'refused' | 'unknown' | 'unavailable'; code: ErrorCode; detail: string };

const NOT_SENT: ReadonlySet<ErrorCode> = new Set(['BANK_NOT_PARTICIPATING', 'BANK_NOT_REGISTERED', 'VALIDATION_ERROR']);

/**
 * A core's refusal code that says the account is held in another currency (CURRENCY_MISMATCH,
 * INVALID_CURRENCY, WRONG_CURRENCY, …): the movement's answer is 422 CURRENCY_MISMATCH, not a
 * core error (the spec's table has no code for it, so a core's own spelling is read).
 */
const CURRENCY_REFUSAL = /CURRENCY/i;

export async function outcomeOf<T>(call: () => Promise<T>, logger: Logger): Promise<CallOutcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (error instanceof BankCoreError) {
      const kind = error.reason === 'rejected' || error.reason === 'client_error' ? 'refused' : 'unknown';
      const currency = kind === 'refused' && CURRENCY_REFUSAL.test(error.coreCode ?? '');
      return { ok: false, kind, code: currency ? 'CURRENCY_MISMATCH' : error.code, detail: error.detail };
    }
    if (error instanceof GatewayError) {
      return {
        ok: false,
        kind: NOT_SENT.has(error.code) ? 'refused' : 'unavailable',
        code: error.code,
        detail: error.detail,
      };
    }
    logger.error({ err: error }, 'unexpected failure around a core call');
    return { ok: false, kind: 'unavailable', code: 'INTERNAL_ERROR', detail: 'internal error' };
  }
}
