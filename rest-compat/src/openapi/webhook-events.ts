import { z } from 'zod';

/**
 * The events the gateway delivers as webhooks (API-CONTRACT "Webhook headers"; docs/graphql-contract.md
 * names each move's event and its data), for the document's OpenAPI 3.1 `webhooks` section: the
 * envelope with each event's data, snake_case as sent. The data objects mirror the writers' own
 * builders (subgraphs/payments: sessionEventData, refundEventData, mandate.moves; open-banking:
 * consentEventData, paymentOrderEventData); test/support/webhook-receiver.ts checks every delivery
 * the e2e tests receive against these schemas, so they cannot drift from what is sent.
 */

const minor = z.number().int().describe('Minor units.');
const livemode = z.boolean().describe("false for an event of a test object (a test credential's).");
const failureCode = z.string().nullable().describe('Why it failed: a spec error code (CBS_ERROR, OTP_INVALID, …).');
// Optional only for events written before metadata existed (still in flight after an upgrade); every event now carries it.
const metadata = z
  .record(z.string(), z.string())
  .optional()
  .describe("The merchant's own key-value pairs on the object as they were when the event happened ({} when none).");

const sessionData = <S extends [string, ...string[]]>(statuses: S) =>
  z.object({
    session_id: z.string().describe('ops_…'),
    livemode,
    status: z.enum(statuses),
    amount: minor,
    currency: z.string(),
    reference: z.string().nullable().describe("The merchant's own reference given at creation."),
    metadata,
    merchant_id: z.string().describe('mer_…'),
  });

const refundData = <S extends [string, ...string[]]>(statuses: S) =>
  z.object({
    refund_id: z.string().describe('rfd_…'),
    session_id: z.string().nullable().describe("The session refunded (ops_…); null for a mandate charge's refund."),
    charge_id: z.string().optional().describe("The mandate charge refunded (chg_…): only on a charge's refund."),
    mandate_id: z.string().optional().describe("The refunded charge's mandate (mdt_…): only on a charge's refund."),
    livemode,
    status: z.enum(statuses),
    amount: minor,
    currency: z.string(),
    reference: z.string().nullable().describe("The merchant's own reference given with the refund."),
    metadata,
    merchant_id: z.string().describe('mer_…'),
  });

const mandateData = <S extends [string, ...string[]]>(statuses: S) =>
  z
    .object({
      mandate_id: z.string().describe('mdt_…'),
      livemode,
      status: z.enum(statuses),
      mandate_status: z
        .enum(statuses)
        .describe('The same: the mandate’s own status, under a name a charge event never uses.'),
      merchant_id: z.string().describe('mer_…'),
      amount: minor.describe('The most one charge may take, in minor units.'),
      currency: z.string(),
      interval: z.enum(['weekly', 'monthly', 'yearly']),
      revoked_by: z.string().nullable().describe("customer or bank when the customer's bank revoked it; else null."),
      metadata,
    })
    .strict();

const chargeData = <S extends [string, ...string[]]>(statuses: S) =>
  z.object({
    charge_id: z.string().describe('chg_…'),
    livemode,
    mandate_id: z.string().describe('mdt_…'),
    status: z.enum(statuses),
    charge_status: z.enum(statuses).describe('The same: the charge’s status, never to be read as the mandate’s.'),
    amount: minor,
    currency: z.string(),
    reference: z.string().describe("The merchant's reference of the charge."),
    metadata,
    merchant_id: z.string().describe('mer_…'),
    settlement_type: z.string().describe('internal (same bank) or rail (cross bank).'),
    creditor_bank: z.string().describe("Handle of the merchant's bank."),
  });

const consentData = <S extends [string, ...string[]]>(statuses: S) =>
  z.object({
    consent_id: z.string().describe('con_…'),
    livemode,
    status: z.enum(statuses),
    tpp_id: z.string().describe('tpp_…'),
    bank_handle: z.string(),
    scopes: z.array(
      z.enum([
        'accounts:read',
        'balances:read',
        'transactions:read',
        'payments:write',
        'funds_confirmation',
        'vrp_payments',
      ]),
    ),
    expires_at: z.string().describe('ISO 8601 UTC.'),
  });

const paymentOrderData = <S extends [string, ...string[]]>(statuses: S) =>
  z.object({
    payment_order_id: z.string().describe('po_…'),
    consent_id: z.string().describe('con_…'),
    livemode,
    status: z.enum(statuses),
    amount: minor,
    currency: z.string(),
    source_account_id: z.string().describe('acc_…'),
    destination: z
      .object({ type: z.string().describe('iban.'), value: z.string().describe("The payee's IBAN.") })
      .strict(),
    failure_code: z.string().optional().describe('Why it failed or was rejected, once it has a reason.'),
  });

const vrpPaymentData = <S extends [string, ...string[]]>(statuses: S) =>
  z.object({
    payment_id: z.string().describe('vrp_…'),
    consent_id: z.string().describe('con_… (a VRP consent)'),
    livemode,
    status: z.enum(statuses),
    amount: minor,
    currency: z.string(),
    reference: z.string(),
    failure_code: z.string().optional().describe('Why it failed.'),
  });

/** A bank's net debit position crossing an alert threshold or reaching its cap (net-debit.positions.ts builds it). */
const liquidityData = z
  .object({
    bank_handle: z.string().describe('The bank whose position it is.'),
    currency: z.string(),
    livemode,
    threshold: z
      .number()
      .int()
      .describe('The alert threshold crossed, in percent of the cap (100 for liquidity.cap_reached).'),
    position: minor.describe(
      'The position right after the crossing: owed minus owed to it in unsettled obligations, plus reservations.',
    ),
    net_debit_cap: minor.describe('The cap the threshold is a percentage of.'),
  })
  .strict();

export interface WebhookEventDefinition {
  /** Who receives it: merchants (payments), TPPs (Open Banking), or the operator and the bank (net debit caps). */
  audience: 'merchant' | 'tpp' | 'operator_and_bank';
  summary: string;
  data: z.ZodObject<z.ZodRawShape>;
}

/** Every event delivered as a webhook, with its data. The status an event carries is the state its move reached. */
export const WEBHOOK_EVENTS: Record<string, WebhookEventDefinition> = {
  'payment.initiated': {
    audience: 'merchant',
    summary: 'A payment session was created (PENDING). Informational: do not act on it.',
    data: sessionData(['PENDING']).strict(),
  },
  'payment.processing': {
    audience: 'merchant',
    summary:
      'The payer authenticated and the debit is in flight (PROCESSING), or a cross-bank debit is booked and the credit awaits the payee bank (SETTLEMENT_PENDING). Informational: do not act on it.',
    data: sessionData(['PROCESSING', 'SETTLEMENT_PENDING']).strict(),
  },
  'payment.completed': {
    audience: 'merchant',
    summary:
      "Funds deducted and the credit at the payee's bank confirmed (COMPLETED): fulfil the order on this event only.",
    data: sessionData(['COMPLETED'])
      .extend({
        settlement_type: z.enum(['internal', 'rail']).describe('internal (same bank) or rail (cross bank).'),
        creditor_bank: z.string().describe("Handle of the payee's bank."),
      })
      .strict(),
  },
  'payment.failed': {
    audience: 'merchant',
    summary:
      'The payment failed (FAILED): OTP failures, a timeout or a core error; failure_code says which (CBS_OUTCOME_UNKNOWN when a core could not say in time).',
    data: sessionData(['FAILED']).extend({ failure_code: failureCode }).strict(),
  },
  'payment.expired': {
    audience: 'merchant',
    summary: 'The session timed out before completion, or the merchant ended it (EXPIRED).',
    data: sessionData(['EXPIRED']).strict(),
  },
  'refund.completed': {
    audience: 'merchant',
    summary: 'A refund reached the payer (COMPLETED).',
    data: refundData(['COMPLETED']).strict(),
  },
  'refund.failed': {
    audience: 'merchant',
    summary:
      'A refund failed (FAILED); failure_code says why. Its amount is refundable again unless an operator must check.',
    data: refundData(['FAILED']).extend({ failure_code: failureCode }).strict(),
  },
  'mandate.activated': {
    audience: 'merchant',
    summary: 'The customer confirmed the mandate (ACTIVE): it can be charged.',
    data: mandateData(['ACTIVE']),
  },
  'mandate.cancelled': {
    audience: 'merchant',
    summary: "The mandate was cancelled by the merchant or revoked at the customer's bank (CANCELLED).",
    data: mandateData(['CANCELLED']),
  },
  'mandate.charge.completed': {
    audience: 'merchant',
    summary: 'A charge of a mandate was paid (COMPLETED).',
    data: chargeData(['COMPLETED']).strict(),
  },
  'mandate.charge.failed': {
    audience: 'merchant',
    summary: 'A charge of a mandate failed (FAILED); failure_code says why.',
    data: chargeData(['FAILED']).extend({ failure_code: failureCode }).strict(),
  },
  'consent.granted': {
    audience: 'tpp',
    summary: 'The customer approved the consent request (AUTHORISED).',
    data: consentData(['AUTHORISED']).strict(),
  },
  'consent.revoked': {
    audience: 'tpp',
    summary: 'The consent was revoked by the TPP, the customer or the bank (REVOKED); revoked_by says who.',
    data: consentData(['REVOKED'])
      .extend({ revoked_by: z.enum(['tpp', 'customer', 'bank']).nullable() })
      .strict(),
  },
  'consent.expired': {
    audience: 'tpp',
    summary: 'The consent reached its expiry, or was never decided in time (EXPIRED).',
    data: consentData(['EXPIRED']).strict(),
  },
  'payment_order.processing': {
    audience: 'tpp',
    summary: 'The payment order is executing (PROCESSING).',
    data: paymentOrderData(['PROCESSING']).strict(),
  },
  'payment_order.pending_sca': {
    audience: 'tpp',
    summary: 'Strong customer authentication is required before execution (PENDING_SCA): send the customer to sca_url.',
    data: paymentOrderData(['PENDING_SCA'])
      .extend({ sca_url: z.string().describe('Where the customer authenticates the order.') })
      .strict(),
  },
  'payment_order.completed': {
    audience: 'tpp',
    summary: 'The payment order was executed (COMPLETED).',
    data: paymentOrderData(['COMPLETED']).strict(),
  },
  'payment_order.failed': {
    audience: 'tpp',
    summary: 'The payment order failed (FAILED): declined by a bank, a processing error, or SCA failed or expired.',
    data: paymentOrderData(['FAILED']).strict(),
  },
  'payment_order.rejected': {
    audience: 'tpp',
    summary: 'The bank rejected the payment order (REJECTED).',
    data: paymentOrderData(['REJECTED']).strict(),
  },
  'vrp_consent.granted': {
    audience: 'tpp',
    summary: 'The customer approved the VRP consent (AUTHORISED): payments within its limits may start.',
    data: consentData(['AUTHORISED']).strict(),
  },
  'vrp_consent.revoked': {
    audience: 'tpp',
    summary:
      'The VRP consent was revoked by the TPP, the customer or the bank (REVOKED): no payment is accepted after it.',
    data: consentData(['REVOKED'])
      .extend({ revoked_by: z.enum(['tpp', 'customer', 'bank']).nullable() })
      .strict(),
  },
  'vrp_consent.expired': {
    audience: 'tpp',
    summary: 'The VRP consent reached its expiry (valid_to), or was never decided in time (EXPIRED).',
    data: consentData(['EXPIRED']).strict(),
  },
  'vrp_payment.completed': {
    audience: 'tpp',
    summary: 'The VRP payment was executed (COMPLETED).',
    data: vrpPaymentData(['COMPLETED']).strict(),
  },
  'vrp_payment.failed': {
    audience: 'tpp',
    summary: 'The VRP payment failed (FAILED); failure_code says why. Its share of the limits is free again.',
    data: vrpPaymentData(['FAILED']).strict(),
  },
  'liquidity.threshold_reached': {
    audience: 'operator_and_bank',
    summary:
      "A bank's net debit position rose to or past one of its cap's alert thresholds (default 80% and 100%): once per upward crossing, not per payment.",
    data: liquidityData,
  },
  'liquidity.cap_reached': {
    audience: 'operator_and_bank',
    summary:
      "A bank's net debit position reached its cap: cross-bank movements it would pay are refused 422 NET_DEBIT_CAP_EXCEEDED until a settlement cycle or a higher cap makes room. Once per crossing.",
    data: liquidityData,
  },
};

/** The body of one delivery of `event`: the envelope with that event's data. */
export function webhookEnvelopeSchema(event: string): z.ZodObject<z.ZodRawShape> {
  const definition = WEBHOOK_EVENTS[event];
  if (!definition) throw new Error(`"${event}" is not a documented webhook event`);
  return z
    .object({
      id: z
        .string()
        .describe('evt_…, the same on every attempt of this delivery: deduplicate on it.')
        .meta({ examples: ['evt_4RfV5tgB6yhN7ujM8ikO9lP0'] }),
      event: z.literal(event),
      created_at: z.string().describe('When the event happened, ISO 8601 UTC.'),
      livemode,
      sequence: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe(
          "The event's place among its session's (refund's, mandate's, consent's, payment order's; for liquidity events the bank position's, per receiver) events, from 1: order by it, drop what you already have.",
        ),
      data: definition.data,
    })
    .strict();
}
