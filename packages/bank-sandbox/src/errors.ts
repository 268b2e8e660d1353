import { GatewayError, httpStatusOf } from '@gateway/kernel';

/**
 * An error answered by the sandbox bank. The sandbox plays a bank core, not the gateway, so it has
 * its own small vocabulary (DUPLICATE_REFERENCE, INVALID_INTERNAL_KEY, ...) next to the codes it
 * shares with the spec's table (INSUFFICIENT_FUNDS, ACCOUNT_NOT_FOUND, OTP_INVALID).
 */
export class BankError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BankError';
  }
}

export const bankErrors = {
  validation: (message: string) => new BankError(400, 'VALIDATION_ERROR', message),
  unauthorized: () => new BankError(401, 'INVALID_INTERNAL_KEY', 'missing or invalid X-Service-Internal-Key'),
  otpInvalid: () => new BankError(401, 'OTP_INVALID', 'customer reference or OTP wrong'),
  accountNotFound: (iban: string) => new BankError(404, 'ACCOUNT_NOT_FOUND', `no account ${iban} at this bank`),
  duplicateReference: (reference: string) =>
    new BankError(
      409,
      'DUPLICATE_REFERENCE',
      `reference ${reference} was already used with a different iban, amount or currency`,
    ),
  /** A movement in another currency than the account's: refused before anything is booked. */
  currencyMismatch: (iban: string, held: string, asked: string) =>
    new BankError(422, 'CURRENCY_MISMATCH', `currency: account ${iban} is held in ${held}, not ${asked}`),
  insufficientFunds: () => new BankError(422, 'INSUFFICIENT_FUNDS', 'balance too low for this debit'),
  balanceLimit: () => new BankError(422, 'BALANCE_LIMIT', 'credit would take the balance past the safe-integer range'),
  gatewayNotConfigured: () =>
    new BankError(503, 'GATEWAY_NOT_CONFIGURED', 'this bank has no gateway URL and bank key yet'),
  gatewayUnreachable: (why: string) => new BankError(502, 'GATEWAY_UNREACHABLE', `gateway call failed: ${why}`),
  injected: (status: number) =>
    new BankError(status, 'INJECTED_FAULT', `fault injected by the sandbox (HTTP ${status})`),
};

export interface ErrorBody {
  error: { code: string; message: string };
}

/** The {error: {code, message}} body and status for anything thrown while handling a request. */
export function toErrorReply(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof BankError)
    return { status: error.status, body: { error: { code: error.code, message: error.message } } };
  if (error instanceof GatewayError) {
    return { status: httpStatusOf(error.code), body: { error: { code: error.code, message: error.detail } } };
  }
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    // fastify's own refusals: malformed JSON, wrong content type, body too large
    return {
      status: fastifyError.statusCode,
      body: { error: { code: 'VALIDATION_ERROR', message: fastifyError.message ?? 'bad request' } },
    };
  }
  return { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'sandbox bank internal error' } } };
}
