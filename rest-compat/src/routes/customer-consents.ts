import type { ErrorCode } from '@gateway/kernel';
import { z } from 'zod';
import { defineRoute } from '../route';

const CONSENT_FIELDS = `id tppName kind status scopes authorisedAt expiresAt
    vrp { creditor { type value } currency reference maximumIndividualAmount periodicLimits { periodType periodAlignment amount } validFrom validTo }`;

const token = z
  .string()
  .describe(
    'The token of this visit (ccs_…), answered by POST /ob/my-consents/session: bound to the customer at their bank, valid 10 minutes. A missing, forged or run-out token is 401 UNAUTHORIZED.',
  );

const customerConsent = z
  .object({
    id: z.string().describe('Consent id (con_…).'),
    tpp_name: z.string().describe('The third-party provider holding the access.'),
    kind: z
      .enum(['accounts', 'funds_confirmation', 'vrp'])
      .describe(
        'accounts: account access; funds_confirmation: confirmation of funds; vrp: variable recurring payments.',
      ),
    status: z.enum(['AUTHORISED', 'REVOKED']),
    scopes: z.array(z.string()),
    authorised_at: z.string().nullable().describe('When the customer approved it (ISO 8601 UTC).'),
    expires_at: z.string().describe('ISO 8601 UTC.'),
    vrp: z
      .object({
        creditor: z.object({ type: z.string(), value: z.string() }).strict(),
        currency: z.string(),
        reference: z.string(),
        maximum_individual_amount: z.number().int().describe('Minor units.'),
        periodic_limits: z.array(
          z.object({ period_type: z.string(), period_alignment: z.string(), amount: z.number().int() }).strict(),
        ),
        valid_from: z.string(),
        valid_to: z.string().nullable(),
      })
      .strict()
      .nullable()
      .describe("A VRP consent's payee and limits; null for other consents."),
  })
  .strict();

const consentList = z.object({ consents: z.array(customerConsent) }).strict();

/** Back to the page, which shows the refusal (and asks to sign in again). */
const backToPage = (_path: Record<string, string>, code: string): string =>
  `/ob/my-consents?error=${encodeURIComponent(code)}`;

/** The page with the list, carrying the visit's token (10 minutes; the page is no-store and no-referrer). */
const listPage = (tokenValue: string, revoked?: string): string =>
  `/ob/my-consents?token=${encodeURIComponent(tokenValue)}${revoked ? `&revoked=${encodeURIComponent(revoked)}` : ''}`;

const SIGN_IN_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'OTP_INVALID',
  'ALIAS_NOT_FOUND',
  'ALIAS_INACTIVE',
  'BANK_NOT_PARTICIPATING',
  'RATE_LIMITED',
  'CBS_TIMEOUT',
  'CBS_ERROR',
];

/**
 * The customer's own consents, without their bank's app (issue 51): the page GET /ob/my-consents
 * (pages/my-consents-page.ts), the sign-in with alias or IBAN and OTP, the list and the
 * revocation. The page's forms post here without script (form-encoded), answered 303 See Other.
 */
export const customerConsentRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ob/my-consents',
    tag: 'Open Banking: customer',
    summary: 'My consents page, or the signed-in list as JSON (customer)',
    description:
      'A browser gets the page where the customer sees and revokes their consents; with Accept: application/json (and not text/html) the same path answers ' +
      'GET /ob/my-consents/consents. Public: the token of the visit is the capability.',
    auth: [],
    query: z.object({ token }).strict(),
    page:
      'The page (text/html) for any request that does not ask for JSON only: without a token, a form for the bank (?bank=<handle> prefills it), the alias or IBAN and the OTP; ' +
      'with ?token=<ccs_…> the AUTHORISED consents at that bank (TPP, kind, scopes or VRP limits in plain words, since and until) each with a Revoke button. ' +
      '?error=<code> (after a form posted without script was refused) shows that refusal; ?revoked=<consent_id> confirms a revocation.',
    operation: `query MyConsents($token: String!) { customerConsents(token: $token) { ${CONSENT_FIELDS} } }`,
    variables: ({ query }) => ({ token: query.token }),
    result: ({ customerConsents }) => ({ consents: customerConsents }),
    status: 200,
    response: consentList,
    errors: ['UNAUTHORIZED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/my-consents/session',
    tag: 'Open Banking: customer',
    summary: 'Sign in to see my consents (customer)',
    description:
      "The customer names their bank and one of their accounts there (alias or IBAN), and the OTP from that bank: looked up in the identity registry and verified by the bank's core " +
      'exactly as at consent approval (wrong OTPs counted, rate limited). Answers a token for this visit (10 minutes, signed, never stored, without the OTP) and the ' +
      "customer's AUTHORISED consents at that bank: every live consent whose consented accounts include one of theirs. " +
      'Posted as a form (application/x-www-form-urlencoded: bank_handle, customer_type, customer_value, otp), it answers 303 See Other to the page with the list, or back with ?error=<code>.',
    auth: [],
    bodyTypes: ['json', 'form'],
    body: z
      .object({
        bank_handle: z.string().describe("The customer's bank."),
        customer: z.object({ type: z.string().describe('alias or iban.'), value: z.string() }).strict(),
        otp: z.string().describe("One-time password from the customer's bank."),
      })
      .strict(),
    htmlForm: {
      fields: z
        .object({
          bank_handle: z.string().describe("The customer's bank."),
          customer_type: z.string().describe('alias or iban.'),
          customer_value: z.string().describe('The alias or the IBAN.'),
          otp: z.string().describe("One-time password from the customer's bank."),
        })
        .strict(),
      body: (fields) => ({
        bank_handle: fields.bank_handle,
        customer: { type: fields.customer_type, value: fields.customer_value },
        otp: fields.otp,
      }),
      success: ({ signInCustomerConsents }) => listPage(signInCustomerConsents.token),
      failure: backToPage,
    },
    operation: `mutation SignInCustomerConsents($input: SignInCustomerConsentsInput!) {
  signInCustomerConsents(input: $input) { token expiresAt consents { ${CONSENT_FIELDS} } }
}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ signInCustomerConsents }) => signInCustomerConsents,
    status: 200,
    response: z
      .object({
        token,
        expires_at: z.string().describe('When the token runs out (ISO 8601 UTC).'),
        consents: z.array(customerConsent),
      })
      .strict(),
    errors: SIGN_IN_ERRORS,
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/my-consents/consents',
    tag: 'Open Banking: customer',
    summary: 'List my consents (customer)',
    description:
      "The signed-in customer's AUTHORISED live consents at their bank, newest first, with the token of the visit (query parameter token).",
    auth: [],
    query: z.object({ token }).strict(),
    operation: `query CustomerConsents($token: String!) { customerConsents(token: $token) { ${CONSENT_FIELDS} } }`,
    variables: ({ query }) => ({ token: query.token }),
    result: ({ customerConsents }) => ({ consents: customerConsents }),
    status: 200,
    response: consentList,
    errors: ['UNAUTHORIZED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/my-consents/consents/{consent_id}/revoke',
    tag: 'Open Banking: customer',
    summary: 'Revoke one of my consents (customer)',
    description:
      'With the token of the visit: the consent becomes REVOKED with revoked_by customer, consent.revoked (vrp_consent.revoked for a VRP consent) is sent and every code and token ' +
      "of it is refused from the next request on (401 TOKEN_REVOKED). Repeating it answers the same. A consent that is not this customer's is 404 CONSENT_NOT_FOUND, like an unknown one. " +
      'Posted as a form (application/x-www-form-urlencoded: token), it answers 303 See Other to the page with the list, or back with ?error=<code>.',
    auth: [],
    params: z.object({ consent_id: z.string().describe('con_…') }).strict(),
    bodyTypes: ['json', 'form'],
    body: z.object({ token }).strict(),
    htmlForm: {
      fields: z.object({ token }).strict(),
      body: (fields) => ({ token: fields.token }),
      success: ({ revokeCustomerConsent }) => listPage(revokeCustomerConsent.token, revokeCustomerConsent.consentId),
      failure: backToPage,
    },
    operation: `mutation RevokeCustomerConsent($token: String!, $consentId: ID!) {
  revokeCustomerConsent(token: $token, consentId: $consentId) { consentId status token }
}`,
    variables: ({ params, body }) => ({ token: body.token, consentId: params.consentId }),
    result: ({ revokeCustomerConsent }) => ({
      consentId: revokeCustomerConsent.consentId,
      status: revokeCustomerConsent.status,
    }),
    status: 200,
    response: z.object({ consent_id: z.string(), status: z.enum(['REVOKED']) }).strict(),
    errors: ['UNAUTHORIZED', 'CONSENT_NOT_FOUND', 'VALIDATION_ERROR'],
  }),
];
