import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';

const ORDER_RECORD = `fragment PaymentOrderRecord on PaymentOrder {
  paymentOrderId: id livemode consentId status sourceAccountId destination { type value } creditorBank amount currency description scaUrl
  settlementType failureCode createdAt updatedAt completedAt failedAt rejectedAt
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
  'Authorization: Bearer <access token> and X-Consent-Id, both required; the consent must grant payments:write (else 403 SCOPE_INSUFFICIENT). ' +
  'Every 401 carries WWW-Authenticate: Bearer error="invalid_token"; x-fapi-interaction-id is played back.';
const nullableTime = z.string().nullable().describe('ISO 8601 UTC; null until reached.');

export const paymentOrderRecord = z
  .object({
    payment_order_id: z.string().describe('po_…: also the reference on both statements.'),
    livemode: z
      .boolean()
      .describe("false for a test object (a test credential's): its money moves only at test cores."),
    consent_id: z.string(),
    status: z.enum(['PENDING_SCA', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED']),
    source_account_id: z.string().describe('The consented account paid from (acc_…).'),
    destination: z.object({ type: z.literal('iban'), value: z.string().describe('IBAN, electronic format.') }).strict(),
    creditor_bank: z.string().describe("Handle of the payee's bank."),
    amount: z.number().int().describe('Minor units.'),
    currency: z.string(),
    description: z.string().nullable(),
    sca_url: z
      .string()
      .nullable()
      .describe('While PENDING_SCA: send the customer here to authorise the payment at their bank.'),
    settlement_type: z.string().nullable().describe('internal (same bank) or rail (cross bank), once executed.'),
    failure_code: z
      .string()
      .nullable()
      .describe(
        'Why it FAILED (INSUFFICIENT_FUNDS, OTP_INVALID, CBS_ERROR, …) or was REJECTED (PAYMENT_ORDER_REJECTED).',
      ),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: nullableTime,
    failed_at: nullableTime,
    rejected_at: nullableTime,
  })
  .strict();

const flatten = (order: GraphQLData) => ({ ...order });

export const paymentOrderRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/payment-orders',
    tag: 'Open Banking',
    summary: 'Create a payment order',
    description:
      "Pays from a consented account to an IBAN (routed by its institution code). At or below the payer bank's sca_exemption_limit the order executes at once: 201 with status " +
      'PROCESSING (or already COMPLETED, FAILED or REJECTED); poll GET /ob/payment-orders/{id} or take the payment_order.* webhooks. Above it: 202 with status PENDING_SCA and ' +
      `sca_url, and no money moves before the customer passes SCA there. Idempotency-Key as for sessions. 100 requests per minute per TPP. ${AUTH_NOTE}`,
    auth: [['obToken', 'consentId']],
    fapi: true,
    idempotent: true,
    body: z
      .object({
        source_account_id: z.string().describe('A consented account (acc_…); any other is 404 ACCOUNT_NOT_FOUND.'),
        destination: z
          .object({ type: z.string().describe('iban.'), value: z.string().describe("The payee's IBAN.") })
          .strict(),
        amount: z.number().int().describe("Positive integer of minor units, within both banks' minimum and maximum."),
        currency: z.string().describe('LYD, USD or EUR.'),
        description: z.string().nullish().describe('1-500 characters.'),
      })
      .strict(),
    operation: `mutation CreatePaymentOrder($input: CreatePaymentOrderInput!, $idempotencyKey: String) {
  createPaymentOrder(input: $input, idempotencyKey: $idempotencyKey) { ...PaymentOrderRecord }
}
${ORDER_RECORD}`,
    variables: ({ body, headers }) => ({ input: body, idempotencyKey: headers.idempotencyKey ?? null }),
    result: ({ createPaymentOrder }) => flatten(createPaymentOrder),
    status: 201,
    accepted: {
      when: ({ createPaymentOrder }) => createPaymentOrder.status === 'PENDING_SCA',
      description: 'status PENDING_SCA: send the customer to sca_url.',
    },
    response: paymentOrderRecord,
    errors: [
      ...CALL_ERRORS,
      'ACCOUNT_NOT_FOUND',
      'BANK_NOT_PARTICIPATING',
      'AMOUNT_TOO_LOW',
      'AMOUNT_TOO_HIGH',
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_KEY_IN_USE',
      'CBS_TIMEOUT',
      'CBS_ERROR',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/payment-orders/{payment_order_id}',
    tag: 'Open Banking',
    summary: 'Read a payment order',
    description: `The order as it is now. Another consent's or TPP's order is 404 PAYMENT_ORDER_NOT_FOUND, like an unknown id. ${AUTH_NOTE}`,
    auth: [['obToken', 'consentId']],
    fapi: true,
    params: z.object({ payment_order_id: z.string().describe('po_…') }).strict(),
    operation: `query PaymentOrder($id: ID!) { paymentOrder(id: $id) { ...PaymentOrderRecord } }
${ORDER_RECORD}`,
    variables: ({ params }) => ({ id: params.paymentOrderId }),
    result: ({ paymentOrder }) => flatten(paymentOrder),
    status: 200,
    response: paymentOrderRecord,
    errors: [...CALL_ERRORS, 'PAYMENT_ORDER_NOT_FOUND'],
  }),
];
