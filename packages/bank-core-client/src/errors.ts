import { GatewayError, type ErrorCode } from '@gateway/kernel';

/**
 * Why a bank-core call failed, for metrics and logs:
 * - timeout / unreachable: no answer in time or no connection (CBS_TIMEOUT)
 * - server_error: 5xx after the last retry (CBS_ERROR)
 * - bad_answer: a 2xx the client cannot read or that does not match the request (CBS_ERROR)
 * - client_error: a 4xx the client has no specific code for (CBS_ERROR)
 * - rejected: a 4xx with a meaning for the caller (INSUFFICIENT_FUNDS, OTP_INVALID, HANDLE_TAKEN, ...)
 */
export type FailureReason = 'timeout' | 'unreachable' | 'server_error' | 'bad_answer' | 'client_error' | 'rejected';

export interface BankCoreErrorDetails {
  bankHandle: string;
  operation: string;
  reason: FailureReason;
  attempts: number;
  /** HTTP status the core answered last, when it answered. */
  coreStatus?: number;
  /** error.code of the core's answer, when it had one. */
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
export function outcomeOf(error: unknown): string {
  if (error instanceof BankCoreError) return error.reason === 'rejected' ? error.code.toLowerCase() : error.reason;
  if (error instanceof GatewayError) return error.code === 'VALIDATION_ERROR' ? 'invalid_input' : error.code.toLowerCase();
  return 'internal_error';
}
