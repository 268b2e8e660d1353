import { z } from 'zod';
import { defineRoute } from '../route';
import { CONSENT_LIFECYCLE_FIELDS, consentLifecycleShape } from './consent-lifecycle';

/*
 * Variable recurring payments (issue 51; UK Open Banking's domestic-vrp-consents and
 * domestic-vrps): a consent with control parameters, approved once at the consent page and
 * exchanged at /ob/token like the others, then payments without SCA within its limits.
 */

const VRP_CONSENT = `fragment VrpConsentRecord on VrpConsent {
  ${CONSENT_LIFECYCLE_FIELDS} creditor { type value } currency reference debtorAccountId
  controlParameters { maximumIndividualAmount validFrom validTo periodicLimits { periodType periodAlignment amount periodStart periodEnd used remaining } }
}`;

const VRP_PAYMENT = `fragment VrpPaymentRecord on VrpPayment {
  paymentId: id consentId livemode status amount currency reference failureCode settlementType createdAt updatedAt completedAt failedAt
}`;

const CALL_ERRORS = [
  'UNAUTHORIZED',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'CONSENT_EXPIRED',
  'FORBIDDEN',
  'SCOPE_INSUFFICIENT',
] as const;
const AUTH_NOTE =
  "The VRP consent's access token (Authorization: Bearer, or DPoP for a fapi2 TPP) and X-Consent-Id; the consent must be AUTHORISED and unexpired.";
const nullableTime = z.string().nullable().describe('ISO 8601 UTC; null until reached.');
const PERIOD_TYPES = ['Day', 'Week', 'Fortnight', 'Month', 'Half-year', 'Year'] as const;
const PERIOD_ALIGNMENTS = ['Consent', 'Calendar'] as const;

const party = z
  .object({
    type: z.enum(['iban', 'alias']),
    value: z.string().describe('The IBAN or the alias (handle or handle@bank_handle).'),
  })
  .strict();

const vrpConsentRecord = z
  .object({
    ...consentLifecycleShape,
    bank_handle: z.string().describe("The payer's bank."),
    creditor: party.describe('The payee of every payment.'),
    currency: z.string(),
    reference: z.string(),
    debtor_account_id: z.string().nullable().describe('The payer account (acc_…), fixed at approval; null before.'),
    control_parameters: z
      .object({
        maximum_individual_amount: z.number().int().describe('Minor units.'),
        valid_from: z.string(),
        valid_to: z.string().nullable(),
        periodic_limits: z.array(
          z
            .object({
              period_type: z.enum(PERIOD_TYPES),
              period_alignment: z.enum(PERIOD_ALIGNMENTS),
              amount: z.number().int().describe('The most the payments may add up to in one period (minor units).'),
              period_start: z.string().describe('Start of the current period (UTC midnight).'),
              period_end: z.string().describe('End of the current period, exclusive (UTC midnight).'),
              used: z.number().int().describe('What payments not FAILED used in the current period.'),
              remaining: z.number().int().describe('amount - used.'),
            })
            .strict(),
        ),
      })
      .strict(),
    expires_at: z.string().describe('ISO 8601 UTC: valid_to, or the bank’s maximum consent expiry.'),
  })
  .strict();

const vrpPaymentRecord = z
  .object({
    payment_id: z.string().describe('vrp_…: also the reference on both statements.'),
    consent_id: z.string(),
    livemode: z.boolean(),
    status: z.enum(['PROCESSING', 'COMPLETED', 'FAILED']),
    amount: z.number().int().describe('Minor units.'),
    currency: z.string(),
    reference: z.string(),
    failure_code: z
      .string()
      .nullable()
      .describe('Why it FAILED (INSUFFICIENT_FUNDS, CBS_ERROR, NET_DEBIT_CAP_EXCEEDED, …).'),
    settlement_type: z.string().nullable().describe('internal (same bank) or rail (cross bank), once executed.'),
    created_at: z.string().describe('When it was accepted: the period it counts in.'),
    updated_at: z.string(),
    completed_at: nullableTime,
    failed_at: nullableTime,
  })
  .strict();

const consentParams = z.object({ consent_id: z.string().describe('con_…') }).strict();

export const vrpRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/vrp-consents',
    tag: 'Open Banking',
    summary: 'Create a VRP consent',
    description:
      'The TPP asks the customer, once, for a series of payments to one payee within control parameters: the maximum individual amount, periodic limits ' +
      '(Day, Week, Fortnight, Month, Half-year or Year; aligned to the Consent, counting from UTC midnight of valid_from, or to the Calendar; a Calendar ' +
      'Fortnight is refused) and the validity window. All amounts are integers of minor units in the currency. Send the customer to consent_url: the page ' +
      "shows every limit in plain words; the customer's account in the currency becomes the payer account. The code is exchanged at POST /ob/token as for " +
      'other consents (scope vrp_payments). A spec TPP uses its tpk_ token; a fapi2 TPP its client_credentials token (client scope payments), with PAR and DPoP.',
    auth: [['tppToken']],
    body: z
      .object({
        bank_handle: z.string().describe("The payer's bank."),
        creditor: party.describe('The payee: an IBAN (routed by its institution code) or an alias.'),
        currency: z.string().describe('LYD, USD or EUR.'),
        reference: z.string().describe('1-140 characters, shown to the customer.'),
        control_parameters: z
          .object({
            maximum_individual_amount: z.number().int().describe('Positive integer of minor units.'),
            periodic_limits: z
              .array(
                z
                  .object({
                    period_type: z.string().describe('Day, Week, Fortnight, Month, Half-year or Year.'),
                    period_alignment: z.string().describe('Consent or Calendar.'),
                    amount: z.number().int().describe('Positive integer of minor units.'),
                  })
                  .strict(),
              )
              .describe('At least one; a period type at most once per alignment.'),
            valid_from: z.string().nullish().describe('ISO 8601 with a time zone; default: now.'),
            valid_to: z
              .string()
              .nullish()
              .describe("ISO 8601 with a time zone, after valid_from; default: the bank's maximum consent expiry."),
          })
          .strict(),
        redirect_uri: z.string().describe("Exactly one of the TPP's registered redirect URIs."),
        state: z.string().describe('1-512 characters, echoed back unchanged to redirect_uri.'),
        code_challenge: z.string().describe('BASE64URL(SHA-256(code_verifier)): 43 characters.'),
        code_challenge_method: z.string().describe('S256 (anything else: 400 PKCE_METHOD_REJECTED).'),
      })
      .strict(),
    operation: `mutation CreateVrpConsent($input: CreateVrpConsentInput!) { createVrpConsent(input: $input) { ...VrpConsentRecord } }
${VRP_CONSENT}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ createVrpConsent }) => createVrpConsent,
    status: 201,
    response: vrpConsentRecord,
    errors: [
      'UNAUTHORIZED',
      'FORBIDDEN',
      'PKCE_METHOD_REJECTED',
      'BANK_NOT_REGISTERED',
      'BANK_NOT_PARTICIPATING',
      'ALIAS_INACTIVE',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/vrp-consents/{consent_id}',
    tag: 'Open Banking',
    summary: 'Read a VRP consent, with used and remaining per period',
    description:
      "With the TPP token, the TPP's own; with an access token (and X-Consent-Id), the consent it was issued for. Each periodic limit shows its current " +
      'period and what payments not FAILED used in it. Another TPP’s consent, or a consent of another kind, is 404 CONSENT_NOT_FOUND.',
    auth: [['tppToken'], ['obToken', 'consentId']],
    params: consentParams,
    operation: `query GetVrpConsent($id: ID!) { vrpConsent(id: $id) { ...VrpConsentRecord } }
${VRP_CONSENT}`,
    variables: ({ params }) => ({ id: params.consentId }),
    result: ({ vrpConsent }) => vrpConsent,
    status: 200,
    response: vrpConsentRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'CONSENT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ob/vrp-consents/{consent_id}',
    tag: 'Open Banking',
    summary: 'Revoke a VRP consent (TPP)',
    description:
      'REVOKED (revoked_by tpp, vrp_consent.revoked sent); every code and token of it stops working at once and no payment is accepted after it. ' +
      "Payments already accepted go on. Idempotent on a consent already final. Another TPP's consent, or one of another kind, is 404 CONSENT_NOT_FOUND.",
    auth: [['tppToken'], ['obToken', 'consentId']],
    fapi: true,
    params: consentParams,
    operation: `mutation RevokeVrpConsent($id: ID!) { revokeVrpConsent(id: $id) { id } }`,
    variables: ({ params }) => ({ id: params.consentId }),
    status: 204,
    errors: ['UNAUTHORIZED', 'INVALID_API_KEY', 'TOKEN_EXPIRED', 'TOKEN_REVOKED', 'FORBIDDEN', 'CONSENT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/vrp-consents/{consent_id}/funds-confirmation',
    tag: 'Open Banking',
    summary: 'Confirm funds on a VRP consent',
    description:
      `Does the payer account hold amount (minor units, in the consent currency) now? Read live from its core; funds_available true or false, never the balance. ${AUTH_NOTE} ` +
      'A core that does not answer gives 503 CBS_TIMEOUT, one that fails 502 CBS_ERROR.',
    auth: [['obToken', 'consentId']],
    fapi: true,
    params: consentParams,
    body: z.object({ amount: z.number().int().describe('Positive integer of minor units.') }).strict(),
    operation: `mutation ConfirmVrpFunds($consentId: ID!, $amount: SafeInt!) { confirmVrpFunds(consentId: $consentId, amount: $amount) { consentId fundsAvailable createdAt } }`,
    variables: ({ params, body }) => ({ consentId: params.consentId, amount: body.amount }),
    result: ({ confirmVrpFunds }) => confirmVrpFunds,
    status: 200,
    response: z
      .object({
        consent_id: z.string(),
        funds_available: z.boolean().describe("true when the payer account's balance covers the amount."),
        created_at: z.string(),
      })
      .strict(),
    errors: [...CALL_ERRORS, 'CBS_TIMEOUT', 'CBS_ERROR'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/vrp-payments',
    tag: 'Open Banking',
    summary: 'Make a VRP payment',
    description:
      'A payment to the consent’s payee, no SCA: accepted only within valid_from/valid_to (else 422 VRP_OUTSIDE_VALIDITY) and every limit, the maximum ' +
      'individual amount and each current period’s total (else 422 VRP_LIMIT_EXCEEDED, the detail naming the limit), checked and reserved before any core ' +
      'call, so payments sent at once cannot pass a limit together. 201 with status PROCESSING; the payments engine moves the money and the payment becomes ' +
      'COMPLETED or FAILED (vrp_payment.* webhooks; a FAILED payment frees its share of the limits). Idempotency-Key as for payment orders. ' +
      AUTH_NOTE,
    auth: [['obToken', 'consentId']],
    fapi: true,
    idempotent: true,
    body: z
      .object({
        consent_id: z.string().describe('The VRP consent (con_…) of the access token.'),
        amount: z.number().int().describe('Positive integer of minor units, in the consent currency.'),
        reference: z.string().describe('1-140 characters: on both statements.'),
      })
      .strict(),
    operation: `mutation CreateVrpPayment($input: CreateVrpPaymentInput!, $idempotencyKey: String) {
  createVrpPayment(input: $input, idempotencyKey: $idempotencyKey) { ...VrpPaymentRecord }
}
${VRP_PAYMENT}`,
    variables: ({ body, headers }) => ({ input: body, idempotencyKey: headers.idempotencyKey ?? null }),
    result: ({ createVrpPayment }) => createVrpPayment,
    status: 201,
    response: vrpPaymentRecord,
    errors: [
      ...CALL_ERRORS,
      'VRP_LIMIT_EXCEEDED',
      'VRP_OUTSIDE_VALIDITY',
      'AMOUNT_TOO_LOW',
      'AMOUNT_TOO_HIGH',
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_KEY_IN_USE',
      'SERVICE_UNAVAILABLE',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/vrp-payments/{payment_id}',
    tag: 'Open Banking',
    summary: 'Read a VRP payment',
    description: `The payment as it is now. Another consent's or TPP's payment is 404 VRP_PAYMENT_NOT_FOUND, like an unknown id. ${AUTH_NOTE}`,
    auth: [['obToken', 'consentId'], ['tppToken']],
    fapi: true,
    params: z.object({ payment_id: z.string().describe('vrp_…') }).strict(),
    operation: `query VrpPayment($id: ID!) { vrpPayment(id: $id) { ...VrpPaymentRecord } }
${VRP_PAYMENT}`,
    variables: ({ params }) => ({ id: params.paymentId }),
    result: ({ vrpPayment }) => vrpPayment,
    status: 200,
    response: vrpPaymentRecord,
    errors: [...CALL_ERRORS, 'VRP_PAYMENT_NOT_FOUND'],
  }),
];
