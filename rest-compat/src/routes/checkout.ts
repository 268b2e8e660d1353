import { z } from 'zod';
import { defineRoute } from '../route';

const sessionParams = z.object({ session_id: z.string().describe('ops_…') }).strict();
const status = z.enum(['PENDING', 'PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED', 'EXPIRED']);

/** The checkout page GET /pay/{session_id} (its HTML in pages/checkout-page.ts) and the JSON behind it. */
export const checkoutRoutes = [
  defineRoute({
    method: 'GET',
    path: '/pay/{session_id}',
    tag: 'Checkout',
    summary: 'Checkout page, or its public view as JSON (payer)',
    description:
      "The checkout_url. A browser gets the checkout page (HTML); with Accept: application/json (and not text/html) the same path answers the session's public view, " +
      'which the page polls when it holds no session token (reloaded mid-payment, or after a refusal). Public: the unguessable session id is the capability.',
    auth: [],
    params: sessionParams,
    page: 'The checkout page (text/html) for any request that does not ask for JSON only: merchant, amount, payee bank and expiry, and a form for the payer and the OTP. 404 page for an unknown session.',
    operation: `query CheckoutView($sessionId: ID!) { checkoutSession(id: $sessionId) { id status otpAttemptsLeft redirectTo failureCode completedAt } }`,
    variables: ({ params }) => ({ sessionId: params.sessionId }),
    result: ({ checkoutSession }) => ({
      sessionId: checkoutSession.id,
      status: checkoutSession.status,
      otpAttemptsLeft: checkoutSession.otpAttemptsLeft,
      redirectTo: checkoutSession.redirectTo,
      failureCode: checkoutSession.failureCode,
      completedAt: checkoutSession.completedAt,
    }),
    status: 200,
    response: z
      .object({
        session_id: z.string(),
        status,
        otp_attempts_left: z
          .number()
          .int()
          .describe('Wrong one-time passwords still allowed before the session fails.'),
        redirect_to: z.string().nullable().describe('Once final: redirect_url with session_id and status.'),
        failure_code: z.string().nullable().describe('Why it FAILED (a spec error code), when it did.'),
        completed_at: z.string().nullable().describe('When it COMPLETED (ISO 8601 UTC), for the receipt.'),
      })
      .strict(),
    errors: ['SESSION_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/pay/{session_id}/authorize',
    tag: 'Checkout',
    summary: 'Authorize a payment (payer)',
    description:
      "Called by the checkout page. The payer is looked up in the identity registry and the OTP verified by the payer's bank; then the bank debits (and, same bank, credits). " +
      "A payer's (or payee's) account held in another currency than the session's is 422 CURRENCY_MISMATCH before any debit: nothing moves and the session stays PENDING, payable from another account. " +
      'Answers COMPLETED (same bank), SETTLEMENT_PENDING (cross bank: COMPLETED once the creditor bank confirms) or PROCESSING, with a session token for the status call. ' +
      'The third wrong OTP fails the session; five refused OTPs for one customer from one client (address, IPv6 /64) within 15 minutes, on any session, lock the next check from that client for the customer (429 RATE_LIMITED, Retry-After); thirty from all clients within 5 minutes hold the customer back until the oldest leaves that window. ' +
      'Safe to retry: the same authorization (same payer account and OTP) sent again while the session is not final answers 200 with its current status and a new session token; ' +
      'once final, the final answer (409 SESSION_ALREADY_COMPLETED, 409 SESSION_FAILED). Another authorization while one is in progress: 409 SESSION_IN_PROGRESS.',
    auth: [],
    params: sessionParams,
    body: z
      .object({
        payer: z.object({ type: z.string().describe('alias or iban.'), value: z.string() }).strict(),
        otp: z.string().describe("One-time password from the payer's bank."),
      })
      .strict(),
    operation: `mutation AuthorizeCheckout($sessionId: ID!, $input: AuthorizeCheckoutInput!) {
  authorizeCheckout(sessionId: $sessionId, input: $input) { sessionId status sessionToken redirectTo }
}`,
    variables: ({ params, body }) => ({ sessionId: params.sessionId, input: body }),
    result: ({ authorizeCheckout }) => authorizeCheckout,
    status: 200,
    response: z
      .object({
        session_id: z.string(),
        status,
        session_token: z.string().describe('sst_…: X-Session-Token for GET /pay/{session_id}/status.'),
        redirect_to: z.string().nullable().describe('Once final: redirect_url with session_id and status.'),
      })
      .strict(),
    errors: [
      'OTP_INVALID',
      'ALIAS_NOT_FOUND',
      'ALIAS_INACTIVE',
      'SESSION_NOT_FOUND',
      'SESSION_EXPIRED',
      'SESSION_ALREADY_COMPLETED',
      'SESSION_IN_PROGRESS',
      'SESSION_FAILED',
      'RATE_LIMITED',
      'INSUFFICIENT_FUNDS',
      'CURRENCY_MISMATCH',
      'BANK_NOT_PARTICIPATING',
      'MERCHANT_SUSPENDED',
      'CBS_TIMEOUT',
      'CBS_ERROR',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/pay/{session_id}/status',
    tag: 'Checkout',
    summary: 'Status of a payment (payer)',
    description:
      'With the session token from the authorization. redirect_to is set once the session is final and has a redirect_url.',
    auth: [['sessionToken']],
    params: sessionParams,
    operation: `query CheckoutStatus($sessionId: ID!) { checkoutStatus(sessionId: $sessionId) { sessionId status failureCode redirectTo completedAt } }`,
    variables: ({ params }) => ({ sessionId: params.sessionId }),
    result: ({ checkoutStatus }) => checkoutStatus,
    status: 200,
    response: z
      .object({
        session_id: z.string(),
        status,
        failure_code: z.string().nullable(),
        redirect_to: z.string().nullable(),
        completed_at: z.string().nullable().describe('When it COMPLETED (ISO 8601 UTC), for the receipt.'),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'SESSION_NOT_FOUND'],
  }),
];
