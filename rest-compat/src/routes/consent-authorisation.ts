import { z } from 'zod';
import { defineRoute } from '../route';

const consentParams = z.object({ consent_id: z.string().describe('con_…') }).strict();
const status = z.enum(['AWAITING_AUTHORISATION', 'AUTHORISED', 'REJECTED', 'REVOKED', 'EXPIRED']);

const decision = z
  .object({
    redirect_to: z
      .string()
      .describe(
        'Send the browser here: redirect_uri with the authorization response (RFC 6749 4.1.2, with iss per RFC 9207).',
      ),
  })
  .strict();

/** Back to the consent page, which shows the refusal next to the field it concerns. */
const backToPage = (path: Record<string, string>, code: string): string =>
  `/ob/auth/${encodeURIComponent(path.consent_id ?? '')}?error=${encodeURIComponent(code)}`;

/**
 * The consent page GET /ob/auth/{consent_id} (its HTML in pages/consent-page.ts) and the
 * customer's decision. The decisions also take the page's forms posted without script
 * (form-encoded), answered 303 See Other (RFC 9700: never re-post the OTP to the TPP).
 */
export const consentAuthorisationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ob/auth/{consent_id}',
    tag: 'Open Banking: customer',
    summary: 'Consent page, or its public view as JSON (customer)',
    description:
      'The consent_url. A browser gets the consent page (HTML); with Accept: application/json (and not text/html) the same path answers what the page shows. ' +
      'Public: the unguessable consent id is the capability.',
    auth: [],
    params: consentParams,
    page:
      'The consent page (text/html) for any request that does not ask for JSON only: the TPP, the bank, each requested scope in plain words and the expiry, and a form for the ' +
      "customer's alias or IBAN and OTP with Approve and Reject. ?error=<code> (after a form posted without script was refused) shows that refusal. 404 page for an unknown consent.",
    operation: `query ConsentAuthorisationView($id: ID!) {
  consentAuthorisation(id: $id) { id status tppName scopes expiresAt otpAttemptsLeft redirectTo bank { handle displayName } }
}`,
    variables: ({ params }) => ({ id: params.consentId }),
    result: ({ consentAuthorisation: view }) => ({
      consentId: view.id,
      status: view.status,
      tppName: view.tppName,
      bankHandle: view.bank.handle,
      bankName: view.bank.displayName ?? view.bank.handle,
      scopes: view.scopes,
      expiresAt: view.expiresAt,
      otpAttemptsLeft: view.otpAttemptsLeft,
      redirectTo: view.redirectTo,
    }),
    status: 200,
    response: z
      .object({
        consent_id: z.string(),
        status,
        tpp_name: z.string().describe('The third-party provider asking for access.'),
        bank_handle: z.string(),
        bank_name: z.string().describe("The bank's display name."),
        scopes: z.array(z.string()),
        expires_at: z.string().describe('ISO 8601 UTC.'),
        otp_attempts_left: z
          .number()
          .int()
          .describe('Wrong one-time passwords still allowed before the consent is rejected.'),
        redirect_to: z
          .string()
          .nullable()
          .describe('Once REJECTED: redirect_uri with error=access_denied, consent_id, state and iss.'),
      })
      .strict(),
    // A fapi2 TPP's consent opened by its URL alone, not through its pushed request (issue 49).
    pageErrorStatuses: [400],
    errors: ['CONSENT_NOT_FOUND', 'PAR_REQUIRED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/auth/{consent_id}/approve',
    tag: 'Open Banking: customer',
    summary: 'Approve a consent (customer)',
    description:
      "Called by the consent page. The customer is looked up in the identity registry (an account at another bank than the consent's is 404 ALIAS_NOT_FOUND) and the OTP verified " +
      "by the consent's bank; the consent becomes AUTHORISED with the customer's accounts at that bank (a funds-confirmation consent: the one account it names, " +
      'which the customer must hold, else 403 FUNDS_ACCOUNT_NOT_OWNED). redirect_to carries code (single use, 60 s), consent_id, state (unchanged) and iss. ' +
      'The third wrong OTP rejects the consent. A consent already approved or rejected is 409 CONSENT_ALREADY_DECIDED, except the same approval sent again ' +
      '(same customer and OTP, within 10 minutes, before the TPP redeemed a code): a browser that lost the answer gets 200 with a new code, and redeeming one code ends the others. ' +
      'Another OTP sent for an approved consent counts as a refused OTP for that customer. ' +
      'Posted as a form (application/x-www-form-urlencoded: customer_type, customer_value, otp), it answers 303 See Other to redirect_to, or back to the page with ?error=<code>.',
    auth: [],
    params: consentParams,
    bodyTypes: ['json', 'form'],
    body: z
      .object({
        customer: z.object({ type: z.string().describe('alias or iban.'), value: z.string() }).strict(),
        otp: z.string().describe("One-time password from the customer's bank."),
      })
      .strict(),
    htmlForm: {
      fields: z
        .object({
          customer_type: z.string().describe('alias or iban.'),
          customer_value: z.string().describe('The alias or the IBAN.'),
          otp: z.string().describe("One-time password from the customer's bank."),
        })
        .strict(),
      body: (fields) => ({ customer: { type: fields.customer_type, value: fields.customer_value }, otp: fields.otp }),
      success: ({ approveConsent }) => approveConsent.redirectTo,
      failure: backToPage,
    },
    operation: `mutation ApproveConsent($consentId: ID!, $input: ApproveConsentInput!) { approveConsent(consentId: $consentId, input: $input) { redirectTo } }`,
    variables: ({ params, body }) => ({ consentId: params.consentId, input: body }),
    result: ({ approveConsent }) => ({ redirectTo: approveConsent.redirectTo }),
    status: 200,
    response: decision,
    errors: [
      'OTP_INVALID',
      'ALIAS_NOT_FOUND',
      'ALIAS_INACTIVE',
      'FUNDS_ACCOUNT_NOT_OWNED',
      'CONSENT_NOT_FOUND',
      'CONSENT_EXPIRED',
      'CONSENT_REVOKED',
      'CONSENT_ALREADY_DECIDED',
      'BANK_NOT_PARTICIPATING',
      'TPP_SUSPENDED',
      'CBS_TIMEOUT',
      'CBS_ERROR',
    ],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/auth/{consent_id}/reject',
    tag: 'Open Banking: customer',
    summary: 'Reject a consent (customer)',
    description:
      "Called by the consent page, with the page_token the page was opened with (the HTML page's reject form carries it; valid 30 minutes): a rejection by the consent id alone " +
      'is 401 UNAUTHORIZED, as is a token of another consent or one run out (open the page again). ' +
      'The consent becomes REJECTED; redirect_to carries error=access_denied, consent_id, state and iss. Repeating it answers the same; an approved consent is 409 CONSENT_ALREADY_DECIDED. ' +
      'Posted as a form (application/x-www-form-urlencoded: page_token), it answers 303 See Other to redirect_to, or back to the page with ?error=<code>.',
    auth: [],
    params: consentParams,
    bodyTypes: ['json', 'form'],
    body: z
      .object({
        page_token: z.string().optional().describe("The consent page's token (cpt_…), bound to this consent."),
      })
      .strict(),
    htmlForm: {
      fields: z
        .object({
          page_token: z.string().optional().describe("The consent page's token (cpt_…), bound to this consent."),
        })
        .strict(),
      body: (fields) => ({ page_token: fields.page_token }),
      success: ({ rejectConsent }) => rejectConsent.redirectTo,
      failure: backToPage,
    },
    operation: `mutation RejectConsent($consentId: ID!, $pageToken: String) { rejectConsent(consentId: $consentId, pageToken: $pageToken) { redirectTo } }`,
    variables: ({ params, body }) => ({ consentId: params.consentId, pageToken: body.pageToken ?? null }),
    result: ({ rejectConsent }) => ({ redirectTo: rejectConsent.redirectTo }),
    status: 200,
    response: decision,
    errors: ['UNAUTHORIZED', 'CONSENT_NOT_FOUND', 'CONSENT_EXPIRED', 'CONSENT_REVOKED', 'CONSENT_ALREADY_DECIDED'],
  }),
];
