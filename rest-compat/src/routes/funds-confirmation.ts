import { z } from 'zod';
import { defineRoute } from '../route';
import { CONSENT_LIFECYCLE_FIELDS, consentLifecycleShape } from './consent-lifecycle';

/*
 * Confirmation of funds (CBPII, issue 51): a consent of its own kind, approved at the consent page
 * and exchanged at /ob/token like the others, then questions answered yes or no.
 */

const FUNDS_CONSENT = `fragment FundsConsentRecord on FundsConfirmationConsent {
  ${CONSENT_LIFECYCLE_FIELDS} account { type value }
}`;

const account = z
  .object({
    type: z.enum(['iban', 'alias']),
    value: z.string().describe('The IBAN or the alias (handle or handle@bank_handle).'),
  })
  .strict();

const fundsConsentRecord = z
  .object({
    ...consentLifecycleShape,
    account: account.describe('The one account the consent is for; the approving customer must hold it.'),
  })
  .strict();

const consentParams = z.object({ consent_id: z.string().describe('con_…') }).strict();

export const fundsConfirmationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/funds-confirmation-consents',
    tag: 'Open Banking',
    summary: 'Create a funds-confirmation consent (CBPII)',
    description:
      'The TPP asks to be told, for one account, whether it holds an amount, and sends the customer to consent_url. The consent page says what it allows ' +
      '("answer yes or no when asked whether your account holds an amount; never your balance"); the approving customer must hold the account (else 403 ' +
      'FUNDS_ACCOUNT_NOT_OWNED at approval). The code is exchanged at POST /ob/token as for other consents; the token has scope funds_confirmation. ' +
      'A spec TPP uses its tpk_ token; a fapi2 TPP its client_credentials token (client scope accounts), with PAR and DPoP as for other consents.',
    auth: [['tppToken']],
    body: z
      .object({
        bank_handle: z.string(),
        account,
        expiry: z
          .string()
          .describe(
            "ISO 8601 date-time with a time zone, in the future, at most the bank's max_consent_expiry_days ahead.",
          ),
        redirect_uri: z.string().describe("Exactly one of the TPP's registered redirect URIs."),
        state: z.string().describe('1-512 characters, echoed back unchanged to redirect_uri.'),
        code_challenge: z.string().describe('BASE64URL(SHA-256(code_verifier)): 43 characters.'),
        code_challenge_method: z.string().describe('S256 (anything else: 400 PKCE_METHOD_REJECTED).'),
      })
      .strict(),
    operation: `mutation CreateFundsConfirmationConsent($input: CreateFundsConfirmationConsentInput!) { createFundsConfirmationConsent(input: $input) { ...FundsConsentRecord } }
${FUNDS_CONSENT}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ createFundsConfirmationConsent }) => createFundsConfirmationConsent,
    status: 201,
    response: fundsConsentRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PKCE_METHOD_REJECTED', 'BANK_NOT_REGISTERED', 'BANK_NOT_PARTICIPATING'],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/funds-confirmation-consents/{consent_id}',
    tag: 'Open Banking',
    summary: 'Read a funds-confirmation consent',
    description:
      "With the TPP token, the TPP's own; with an access token (and X-Consent-Id), the consent it was issued for. Another TPP's consent, or a consent of " +
      'another kind, is 404 CONSENT_NOT_FOUND.',
    auth: [['tppToken'], ['obToken', 'consentId']],
    params: consentParams,
    operation: `query GetFundsConfirmationConsent($id: ID!) { fundsConfirmationConsent(id: $id) { ...FundsConsentRecord } }
${FUNDS_CONSENT}`,
    variables: ({ params }) => ({ id: params.consentId }),
    result: ({ fundsConfirmationConsent }) => fundsConfirmationConsent,
    status: 200,
    response: fundsConsentRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'CONSENT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ob/funds-confirmation-consents/{consent_id}',
    tag: 'Open Banking',
    summary: 'Revoke a funds-confirmation consent (TPP)',
    description:
      'As DELETE /ob/consents/{consent_id}: REVOKED (revoked_by tpp, consent.revoked sent), every code and token of it stops working at once (401 TOKEN_REVOKED). ' +
      "Idempotent on a consent already final. Another TPP's consent, or one of another kind, is 404 CONSENT_NOT_FOUND.",
    auth: [['tppToken'], ['obToken', 'consentId']],
    fapi: true,
    params: consentParams,
    operation: `mutation RevokeFundsConfirmationConsent($id: ID!) { revokeFundsConfirmationConsent(id: $id) { id } }`,
    variables: ({ params }) => ({ id: params.consentId }),
    status: 204,
    errors: ['UNAUTHORIZED', 'INVALID_API_KEY', 'TOKEN_EXPIRED', 'TOKEN_REVOKED', 'FORBIDDEN', 'CONSENT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/funds-confirmations',
    tag: 'Open Banking',
    summary: 'Confirm funds (CBPII)',
    description:
      "Does the consent's account hold amount (integer minor units) now? Read live from the bank core, answered funds_available true or false, never the balance; " +
      "nothing is stored. The funds-confirmation consent's access token (Authorization: Bearer or DPoP) and X-Consent-Id; its consent must be AUTHORISED and " +
      "unexpired. An account-information or payment consent's token is 403 SCOPE_INSUFFICIENT; consent_id other than the token's 403 FORBIDDEN; " +
      "a currency other than the account's 422 CURRENCY_MISMATCH. A core that does not answer gives 503 CBS_TIMEOUT, one that fails 502 CBS_ERROR.",
    auth: [['obToken', 'consentId']],
    fapi: true,
    body: z
      .object({
        consent_id: z.string().describe('The funds-confirmation consent (con_…) of the access token.'),
        reference: z.string().describe("The TPP's reference for this question, 1-140 characters, echoed back."),
        amount: z.number().int().describe('Positive integer of minor units.'),
        currency: z.string().describe("The account's currency (ISO 4217)."),
      })
      .strict(),
    operation: `mutation ConfirmFunds($input: ConfirmFundsInput!) { confirmFunds(input: $input) { fundsConfirmationId consentId reference fundsAvailable createdAt } }`,
    variables: ({ body }) => ({ input: body }),
    result: ({ confirmFunds }) => confirmFunds,
    status: 200,
    response: z
      .object({
        funds_confirmation_id: z.string().describe('fcf_…: this answer.'),
        consent_id: z.string(),
        reference: z.string(),
        funds_available: z.boolean().describe("true when the account's balance covers the amount."),
        created_at: z.string().describe('ISO 8601 UTC.'),
      })
      .strict(),
    errors: [
      'UNAUTHORIZED',
      'TOKEN_EXPIRED',
      'TOKEN_REVOKED',
      'CONSENT_EXPIRED',
      'FORBIDDEN',
      'SCOPE_INSUFFICIENT',
      'CURRENCY_MISMATCH',
      'CBS_TIMEOUT',
      'CBS_ERROR',
      'BANK_NOT_PARTICIPATING',
    ],
  }),
];
