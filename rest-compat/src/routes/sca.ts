import { z } from 'zod';
import { defineRoute } from '../route';

const orderParams = z.object({ payment_order_id: z.string().describe('po_…') }).strict();
const status = z.enum(['PENDING_SCA', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED']);

/** Back to the SCA page, which shows the order's status, or the refusal. */
const page = (path: Record<string, string>): string => `/ob/sca/${encodeURIComponent(path.payment_order_id ?? '')}`;

/**
 * The SCA page GET /ob/sca/{payment_order_id} (its HTML in pages/sca-page.ts) and the customer's
 * authorisation, which also takes the page's form posted without script (303 See Other back to
 * the page: RFC 9700, never re-post the OTP).
 */
export const scaRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ob/sca/{payment_order_id}',
    tag: 'Open Banking: customer',
    summary: 'SCA page of a payment order, or its public view as JSON (customer)',
    description:
      'The sca_url. A browser gets the SCA page (HTML); with Accept: application/json (and not text/html) the same path answers what the page shows. ' +
      'Public: the unguessable payment order id is the capability.',
    auth: [],
    params: orderParams,
    page: "The SCA page (text/html): the TPP, the payee IBAN, the amount and a field for the OTP from the payer's bank. ?error=<code> shows a refusal; 404 page for an unknown order.",
    operation: `query PaymentOrderScaView($id: ID!) {
  paymentOrderSca(id: $id) { id status tppName payeeIban amount currency description payerBank expiresAt otpAttemptsLeft }
}`,
    variables: ({ params }) => ({ id: params.paymentOrderId }),
    result: ({ paymentOrderSca: { id, ...view } }) => ({ paymentOrderId: id, ...view }),
    status: 200,
    response: z
      .object({
        payment_order_id: z.string(),
        status,
        tpp_name: z.string().describe('The third-party provider that initiated the payment.'),
        payee_iban: z.string(),
        amount: z.number().int().describe('Minor units.'),
        currency: z.string(),
        description: z.string().nullable(),
        payer_bank: z.string().describe("Handle of the payer's bank, which checks the OTP."),
        expires_at: z.string().describe('ISO 8601 UTC: afterwards the order FAILS (SCA_EXPIRED).'),
        otp_attempts_left: z.number().int().describe('Wrong one-time passwords still allowed before the order fails.'),
      })
      .strict(),
    errors: ['PAYMENT_ORDER_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/sca/{payment_order_id}/authorize',
    tag: 'Open Banking: customer',
    summary: 'Authorise a payment order with the OTP (customer)',
    description:
      "Called by the SCA page. The OTP is verified by the payer's bank core; accepted, the order becomes PROCESSING and is executed. The third wrong OTP FAILS the order " +
      '(failure_code OTP_INVALID). An order no longer PENDING_SCA (authorised, failed, expired) is 409 PAYMENT_ORDER_NOT_PENDING_SCA, except for the authorisation that ' +
      'passed SCA sent again (same OTP): 200 with where the order stands, so a lost answer can be retried safely. ' +
      'Posted as a form (application/x-www-form-urlencoded: otp), it answers 303 See Other back to the page (with ?error=<code> after a refusal).',
    auth: [],
    params: orderParams,
    bodyTypes: ['json', 'form'],
    body: z.object({ otp: z.string().describe("One-time password from the payer's bank.") }).strict(),
    htmlForm: {
      fields: z.object({ otp: z.string().describe("One-time password from the payer's bank.") }).strict(),
      body: (fields) => ({ otp: fields.otp }),
      success: ({ authorizePaymentOrder }) => `/ob/sca/${encodeURIComponent(authorizePaymentOrder.paymentOrderId)}`,
      failure: (path, code) => `${page(path)}?error=${encodeURIComponent(code)}`,
    },
    operation: `mutation AuthorizePaymentOrder($id: ID!, $otp: String!) { authorizePaymentOrder(id: $id, otp: $otp) { paymentOrderId status } }`,
    variables: ({ params, body }) => ({ id: params.paymentOrderId, otp: body.otp }),
    result: ({ authorizePaymentOrder }) => authorizePaymentOrder,
    status: 200,
    response: z.object({ payment_order_id: z.string(), status }).strict(),
    errors: [
      'OTP_INVALID',
      'PAYMENT_ORDER_NOT_FOUND',
      'PAYMENT_ORDER_NOT_PENDING_SCA',
      'ALIAS_NOT_FOUND',
      'TPP_SUSPENDED',
      'BANK_NOT_PARTICIPATING',
      'CBS_TIMEOUT',
      'CBS_ERROR',
    ],
  }),
];
