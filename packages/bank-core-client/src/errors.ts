import { GatewayError, type ErrorCode } from '@gateway/kernel';

/**
 * Why a bank-core call failed, for metrics and logs:
 * - timeout / unreachable: no answer in time or no connection (CBS_TIMEOUT)
 * - server_error: 5xx after the last retry (CBS_ERROR)
 * - bad_answer: a 2xx that is for another movement (an echo differs), a 2xx read the client cannot
 *   read, or a 3xx (CBS_ERROR). For a debit or credit: outcome unknown, replay the reference.
 * - client_error: a 4xx on a first attempt the client has no specific code for (CBS_ERROR): refused, final
 * - replay_refused: a 4xx (other than a duplicate-reference code) after an earlier attempt of the
 *   same call may have reached the core (timeout, broken answer, 5xx): it proves nothing, the
 *   outcome is unknown until the statement is reconciled (CBS_ERROR)
 * - rejected: a 4xx with a meaning for the caller (INSUFFICIENT_FUNDS, OTP_INVALID, HANDLE_TAKEN, ...)
 *
 * For a debit or credit, only 'rejected' and 'client_error' mean "surely not booked"; timeout,
 * server_error, bad_answer and replay_refused mean "maybe booked"; unreachable is "maybe" unless
 * the connection was refused.
 */
export type FailureReason =
  'timeout' | 'unreachable' | 'server_error' | 'bad_answer' | 'client_error' | 'replay_refused' | 'rejected';

export interface BankCoreErrorDetails {
  bankHandle: string;
  operation: string;
  reason: FailureReason;
  attempts: number;
  /** HTTP status the core answered last, when it answered. */
  coreStatus?: number;
  /** The refusal code of the core's answer (error.code, code, or error as a string), when it had one. */
  coreCode?: string;
}

/**
 * A GatewayError (spec code in extensions.code: CBS_TIMEOUT, CBS_ERROR, INSUFFICIENT_FUNDS,
 * OTP_INVALID, ...) that also says what the core did, so callers can branch on coreCode
 * (e.g. ACCOUNT_NOT_FOUND) without parsing the detail.
 */
export class BankCoreError extends GatewayError {
  readonly bankHandle: string;
  readonly operation: string;
  readonly reason: FailureReason;
  readonly attempts: number;
  readonly coreStatus?: number;
  readonly coreCode?: string;

  constructor(code: ErrorCode, detail: string, details: BankCoreErrorDetails) {
    super(code, detail);
    this.name = 'BankCoreError';
    this.bankHandle = details.bankHandle;
    this.operation = details.operation;
    this.reason = details.reason;
    this.attempts = details.attempts;
    if (details.coreStatus !== undefined) this.coreStatus = details.coreStatus;
    if (details.coreCode !== undefined) this.coreCode = details.coreCode;
  }
}

/** The metrics/log outcome of a finished call. */
export function metricOutcomeOf(error: unknown): string {
  if (error instanceof BankCoreError) return error.reason === 'rejected' ? error.code.toLowerCase() : error.reason;
  if (error instanceof GatewayError)
    return error.code === 'VALIDATION_ERROR' ? 'invalid_input' : error.code.toLowerCase();
  return 'internal_error';
}
