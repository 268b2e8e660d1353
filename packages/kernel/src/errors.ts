import { GraphQLError } from 'graphql';

/**
 * Every error a client can see: the spec's table plus the contract's generic codes.
 * rest-compat maps `extensions.code` to the HTTP status through this one table.
 */
export const ERROR_CODES = {
  // spec: Errors
  INVALID_API_KEY: { status: 401, message: 'API key missing, malformed or revoked' },
  INVALID_BANK_KEY: { status: 401, message: 'Bank key invalid or revoked' },
  TOKEN_EXPIRED: { status: 401, message: 'Access token expired; refresh it' },
  TOKEN_REVOKED: { status: 401, message: 'Token revoked (consent deleted)' },
  CONSENT_REVOKED: { status: 401, message: 'Consent revoked; restart the flow' },
  PKCE_INVALID: { status: 400, message: 'Verifier does not match challenge' },
  PKCE_METHOD_REJECTED: { status: 400, message: 'plain method not accepted' },
  SESSION_NOT_FOUND: { status: 404, message: 'Unknown session_id' },
  SESSION_EXPIRED: { status: 422, message: 'Session TTL elapsed' },
  SESSION_ALREADY_COMPLETED: { status: 409, message: 'Completed session cannot be modified' },
  ALIAS_NOT_FOUND: { status: 404, message: 'Alias does not exist' },
  ALIAS_INACTIVE: { status: 422, message: 'Alias exists but is deactivated' },
  BANK_NOT_PARTICIPATING: { status: 422, message: 'Destination bank not connected' },
  AMOUNT_TOO_LOW: { status: 422, message: "Below the bank's minimum transaction amount" },
  AMOUNT_TOO_HIGH: { status: 422, message: "Above the bank's maximum transaction amount" },
  INSUFFICIENT_FUNDS: { status: 422, message: 'Source balance too low' },
  OTP_INVALID: { status: 401, message: "Customer's OTP wrong" },
  OTP_EXPIRED: { status: 422, message: 'OTP TTL elapsed' },
  CBS_TIMEOUT: { status: 503, message: 'Bank core did not respond in time' },
  CBS_ERROR: { status: 502, message: 'Bank core returned an error' },
  CONSENT_NOT_FOUND: { status: 404, message: 'Unknown consent_id' },
  SCOPE_INSUFFICIENT: { status: 403, message: 'Consent lacks the required scope' },
  ACCOUNT_NOT_FOUND: { status: 404, message: 'Account not among consented accounts' },
  SCA_REQUIRED: { status: 428, message: 'SCA needed; redirect to sca_url' },
  PAYMENT_ORDER_REJECTED: { status: 422, message: 'Bank declined the payment order' },
  HANDLE_TAKEN: { status: 409, message: 'Handle already claimed' },
  HANDLE_INVALID: { status: 400, message: 'Handle format invalid' },
  BANK_NOT_REGISTERED: { status: 404, message: 'Bank handle not in the registry' },
  // API-CONTRACT: generic codes
  VALIDATION_ERROR: { status: 400, message: 'Invalid parameters' },
  CONSENT_EXPIRED: { status: 401, message: 'Consent expired; restart the flow' },
  INVALID_GRANT: {
    status: 400,
    message:
      'Authorization code or refresh token invalid, expired, used, or issued for another consent or redirect_uri',
  },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid credentials' },
  FORBIDDEN: { status: 403, message: 'Valid credentials, insufficient permissions' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  BANK_ALREADY_REGISTERED: { status: 409, message: 'A bank with this handle is already registered' },
  IBAN_INVALID: { status: 422, message: 'IBAN is not valid (format or checksum)' },
  IBAN_NOT_AT_BANK: { status: 422, message: 'IBAN is not an account at the claiming bank' },
  PHONE_TAKEN: { status: 409, message: 'Phone number already linked to an active alias' },
  MERCHANT_NOT_FOUND: { status: 404, message: 'Unknown merchant' },
  TPP_NOT_FOUND: { status: 404, message: 'Unknown TPP' },
  // The spec has no code for a consent the customer already decided; 409 like SESSION_ALREADY_COMPLETED.
  CONSENT_ALREADY_DECIDED: { status: 409, message: 'The customer has already approved or rejected this consent' },
  // The contract names 404 for another TPP's or consent's order; a code of its own, like SESSION_NOT_FOUND.
  PAYMENT_ORDER_NOT_FOUND: { status: 404, message: 'Unknown payment order' },
  // SCA given for an order no longer awaiting it (authorised, failed, expired): 409 like CONSENT_ALREADY_DECIDED.
  PAYMENT_ORDER_NOT_PENDING_SCA: { status: 409, message: 'The payment order does not await SCA' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: 'Unknown webhook delivery' },
  // API-CONTRACT "Webhook endpoints and events": another audience's or world's id, or unknown.
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'Unknown webhook endpoint' },
  WEBHOOK_ENDPOINT_LIMIT_REACHED: { status: 422, message: 'No more webhook endpoints can be added' },
  // Issue 46: one replay of an endpoint at a time; 409 like IDEMPOTENCY_KEY_IN_USE while the first one still sends.
  WEBHOOK_REPLAY_IN_PROGRESS: { status: 409, message: 'A replay of this webhook endpoint is still under way' },
  EVENT_NOT_FOUND: { status: 404, message: 'Unknown event' },
  MOVEMENT_NOT_FOUND: { status: 404, message: 'No movement needing attention for this session' },
  // Issue 46: an operator's CREDITED / NOT_CREDITED finding is for a refund held at CBS_OUTCOME_UNKNOWN only.
  REFUND_NOT_HELD: { status: 409, message: 'The refund is not held at an unknown outcome' },
  SETTLEMENT_CYCLE_NOT_FOUND: { status: 404, message: 'Unknown settlement cycle or position' },
  // API-CONTRACT checkout authorize: another authorization holds a non-final session; a final FAILED one.
  SESSION_IN_PROGRESS: { status: 409, message: 'Another authorization of this session is in progress' },
  SESSION_FAILED: { status: 409, message: 'The session has failed' },
  // API-CONTRACT "Refunds and ending a session early": only a PENDING session can be ended by its merchant.
  SESSION_NOT_PENDING: { status: 409, message: 'The session is not PENDING' },
  // The same section: only a COMPLETED session is refunded, never past its amount.
  REFUND_NOT_ALLOWED: { status: 422, message: 'Only a COMPLETED session can be refunded' },
  REFUND_AMOUNT_EXCEEDED: {
    status: 422,
    message: 'The refund exceeds what is left of the session amount (refunds not FAILED count)',
  },
  // Another merchant's refund or an unknown id, like SESSION_NOT_FOUND.
  REFUND_NOT_FOUND: { status: 404, message: 'Unknown refund' },
  // API-CONTRACT "Mandates".
  MANDATE_NOT_FOUND: { status: 404, message: 'Unknown mandate' },
  MANDATE_NOT_ACTIVE: { status: 422, message: 'Mandate is not active' },
  MANDATE_LIMIT_EXCEEDED: {
    status: 422,
    message: "Charge exceeds the mandate's amount or its one charge per interval",
  },
  MANDATE_NOT_STARTED: { status: 422, message: "Mandate's start date not reached" },
  MANDATE_NOT_PENDING_CONFIRMATION: { status: 409, message: 'Mandate is not awaiting confirmation' },
  // Another merchant's charge, another mandate's (the REST path names both) or an unknown id.
  MANDATE_CHARGE_NOT_FOUND: { status: 404, message: 'Unknown mandate charge' },
  // Issue 47: a session, mandate or payment in another currency than the payee's or payer's account.
  CURRENCY_MISMATCH: { status: 422, message: "The currency is not the account's currency" },
  // Issue 51 (confirmation of funds): the customer approving a funds-confirmation consent does not hold the account it names.
  FUNDS_ACCOUNT_NOT_OWNED: {
    status: 403,
    message: 'The approving customer does not hold the account this funds-confirmation consent names',
  },
  // Issue 51 (variable recurring payments): a payment that would pass one of its consent's control parameters, named in the detail.
  VRP_LIMIT_EXCEEDED: { status: 422, message: "The payment would pass one of its VRP consent's control parameters" },
  // The same issue: a VRP payment before its consent's valid_from or after its valid_to.
  VRP_OUTSIDE_VALIDITY: { status: 422, message: "The payment falls outside its VRP consent's validity period" },
  // Another consent's or TPP's VRP payment, or an unknown id.
  VRP_PAYMENT_NOT_FOUND: { status: 404, message: 'Unknown VRP payment' },
  // API-CONTRACT "Operator controls": named admin keys; one live key per name, so the audit log tells operators apart.
  ADMIN_KEY_NOT_FOUND: { status: 404, message: 'Unknown admin key' },
  ADMIN_KEY_NAME_TAKEN: { status: 409, message: 'A live admin key already has this name' },
  // Issue 48 (API-CONTRACT "Net debit caps and positions"): Mojaloop's payer limit error (4200), before anything moves.
  NET_DEBIT_CAP_EXCEEDED: {
    status: 422,
    message: "The debtor bank's position plus this amount would pass its net debit cap",
  },
  // The same section: Mojaloop's liquidity check (4001), a cap above the bank's settlement account balance.
  NET_DEBIT_CAP_ABOVE_LIQUIDITY: {
    status: 422,
    message: "The net debit cap exceeds the bank's settlement account balance (its liquidity cover)",
  },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, message: 'A request with this Idempotency-Key is still running' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'Idempotency-Key reused with a different request' },
  // API-CONTRACT "Operator controls": a participant an operator suspended; its credentials work again on resume.
  BANK_SUSPENDED: { status: 403, message: 'The bank is suspended by the operator' },
  MERCHANT_SUSPENDED: { status: 403, message: 'The merchant is suspended by the operator' },
  TPP_SUSPENDED: { status: 403, message: 'The TPP is suspended by the operator' },
  // Issue 49 (API-CONTRACT "Open Banking at FAPI 2.0"): RFC 6749 5.2 invalid_client, at the token endpoint
  // (client authentication by private_key_jwt, RFC 7523), and RFC 7591 3.2.2's registration errors.
  INVALID_CLIENT: { status: 401, message: 'Client authentication failed' },
  INVALID_SOFTWARE_STATEMENT: { status: 400, message: 'The software statement is invalid' },
  UNAPPROVED_SOFTWARE_STATEMENT: {
    status: 400,
    message: 'The software statement is not signed by a directory this server trusts',
  },
  INVALID_CLIENT_METADATA: { status: 400, message: 'A client metadata field is invalid' },
  INVALID_REDIRECT_URI: { status: 400, message: 'A redirect URI is invalid' },
  // RFC 9126: a request_uri unknown, used, expired or pushed by another client (invalid_request_uri), and a
  // fapi2 client's authorization that was not pushed (FAPI 2.0 5.3.1.2: PAR is required).
  INVALID_REQUEST_URI: {
    status: 400,
    message: 'The request_uri is unknown, already used, expired, or was pushed by another client',
  },
  PAR_REQUIRED: {
    status: 400,
    message: "A fapi2 client's authorization request must be pushed first (POST /ob/par)",
  },
  REGISTRATION_NOT_ENABLED: {
    status: 403,
    message: 'Dynamic client registration is not enabled on this server (no OB_DIRECTORY_JWKS)',
  },
  // Issue 49 (RFC 9449 7.1, 8): the contract names these two codes as RFC 9449 spells them. A resource
  // answers 401 with a WWW-Authenticate DPoP challenge; the token and PAR endpoints answer 400 (their
  // routes say so), the challenge included, as OAuth clients look for it there too.
  invalid_dpop_proof: { status: 401, message: 'The DPoP proof is missing or invalid' },
  use_dpop_nonce: { status: 401, message: 'The DPoP proof must carry the nonce this server sent (DPoP-Nonce)' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body exceeds 1 MiB' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  INTERNAL_ERROR: { status: 500, message: 'Gateway internal error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Gateway temporarily unavailable' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

export function httpStatusOf(code: string | undefined): number {
  return isErrorCode(code) ? ERROR_CODES[code].status : 500;
}

/**
 * The one error type thrown on a client-reachable path. Carries the spec code in
 * `extensions.code` (how GraphQL clients and rest-compat read it) and a human detail.
 */
export class GatewayError extends GraphQLError {
  readonly code: ErrorCode;
  readonly detail: string;
  /** A refusal that passes with time (RATE_LIMITED): seconds to wait, sent as Retry-After (`extensions.retryAfter`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail?: string, message?: string, retryAfterSeconds?: number) {
    const entry = ERROR_CODES[code];
    const resolvedDetail = detail ?? entry.message;
    super(message ?? entry.message, {
      extensions: {
        code,
        status: entry.status,
        detail: resolvedDetail,
        ...(retryAfterSeconds !== undefined ? { retryAfter: retryAfterSeconds } : {}),
      },
    });
    this.code = code;
    this.detail = resolvedDetail;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The algorithms a DPoP proof (and a private_key_jwt assertion) may be signed with: never none, never HMAC. */
export const DPOP_SIGNING_ALGS = ['ES256', 'PS256', 'EdDSA'] as const;

export type DpopErrorCode = 'invalid_dpop_proof' | 'use_dpop_nonce';

/**
 * A refused DPoP proof (RFC 9449), with the nonce the client should use next when the server has
 * one for it: carried as `extensions.dpopNonce` through the router to rest-compat, which answers
 * with it as the DPoP-Nonce header beside the WWW-Authenticate challenge (dpopAnswerHeaders).
 */
export class DpopRefusal extends GatewayError {
  constructor(
    code: DpopErrorCode,
    detail: string,
    readonly dpopNonce?: string,
  ) {
    super(code, detail);
    if (dpopNonce !== undefined) (this.extensions as Record<string, unknown>).dpopNonce = dpopNonce;
  }
}

/** A nonce this server made (dpop-nonce.ts): a short token of URL-safe characters. Anything else is not passed on. */
const NONCE_FORM = /^[A-Za-z0-9_.-]{1,128}$/;

/** `extensions.dpopNonce` of a formatted GraphQL error, when it has a nonce's form. */
export const dpopNonceOf = (extensions: Record<string, unknown> | undefined): string | undefined =>
  typeof extensions?.dpopNonce === 'string' && NONCE_FORM.test(extensions.dpopNonce) ? extensions.dpopNonce : undefined;

/**
 * The headers a DPoP refusal is answered with (RFC 9449 7.1, 8, 9): the challenge naming the
 * error and the algorithms accepted, and the nonce to use when there is one. Empty for any other error.
 */
export function dpopAnswerHeaders(error: GatewayError): Record<string, string> {
  if (error.code !== 'invalid_dpop_proof' && error.code !== 'use_dpop_nonce') return {};
  // A quoted-string holds neither a quote nor a backslash (RFC 9110 5.6.4), and a header value is
  // ASCII here (Node refuses anything else): the detail is ours, kept plain.
  const description = error.detail.replace(/["\u2018\u2019\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
  const headers: Record<string, string> = {
    'www-authenticate': `DPoP error="${error.code}", error_description="${description}", algs="${DPOP_SIGNING_ALGS.join(' ')}"`,
  };
  const nonce = error instanceof DpopRefusal ? error.dpopNonce : undefined;
  if (nonce !== undefined) headers['dpop-nonce'] = nonce;
  return headers;
}

/** The spec's error body ("Errors"): one shape for every failure answered outside GraphQL. */
export interface ErrorBody {
  error: { code: string; message: string; detail: string; request_id: string };
}

export const errorBody = (error: GatewayError, requestId: string): ErrorBody => ({
  error: { code: error.code, message: error.message, detail: error.detail, request_id: requestId },
});

/** A refusal on a GraphQL endpoint before anything ran: one GraphQL error with the spec's code, status and the request id. */
export function refusalBody(requestId: string, error: GatewayError) {
  return {
    errors: [
      {
        message: error.message,
        extensions: {
          code: error.code,
          status: ERROR_CODES[error.code].status,
          detail: error.detail,
          requestId,
          ...(error instanceof DpopRefusal && error.dpopNonce !== undefined ? { dpopNonce: error.dpopNonce } : {}),
        },
      },
    ],
  };
}

/** `extensions.retryAfter` of a formatted GraphQL error, when it is a whole number of seconds. */
export const retryAfterOf = (extensions: Record<string, unknown> | undefined): number | undefined =>
  typeof extensions?.retryAfter === 'number' && Number.isInteger(extensions.retryAfter) && extensions.retryAfter >= 0
    ? extensions.retryAfter
    : undefined;

/** A VALIDATION_ERROR whose detail names the offending field. */
export const invalid = (field: string, problem: string): GatewayError =>
  new GatewayError('VALIDATION_ERROR', `${field}: ${problem}`);
