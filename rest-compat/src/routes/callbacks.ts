import { z } from 'zod';
import { defineRoute } from '../route';

/** Bank core to gateway (spec "Bank-side callbacks for the national infrastructure"). */
export const callbackRoutes = [
  defineRoute({
    method: 'POST',
    path: '/service/callbacks/v1/payment/credit-confirmed',
    tag: 'Bank callbacks',
    summary: 'Confirm a rail credit (creditor bank core)',
    description:
      "The creditor bank's core, with its own X-Service-Internal-Key, confirms it credited a cross-bank payment: the session COMPLETES and payment.completed is sent. " +
      'Deduplicated by payment_reference (a repeat answers duplicate: true). A confirmation whose amount, currency or IBAN does not match the session is refused (400) and logged.',
    auth: [['internalKey']],
    body: z
      .object({
        payment_reference: z
          .string()
          .describe(
            'Reference the rail credit carried: the session id (ops_), mandate charge id (chg_), payment order id (po_), VRP payment id (vrp_) or refund id (rfd_).',
          ),
        session_id: z
          .string()
          .describe('The same id; when it names no payment of the gateway, payment_reference identifies the payment.'),
        creditor_iban: z.string(),
        amount: z.number().describe('Minor units.'),
        currency: z.string(),
        rrn: z.string().describe('Retrieval reference number of the rail transfer.'),
      })
      .strict(),
    operation: `mutation ConfirmRailCredit($input: CreditConfirmationInput!) {
  confirmRailCredit(input: $input) { paymentReference sessionId status duplicate }
}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ confirmRailCredit }) => confirmRailCredit,
    status: 200,
    response: z
      .object({ payment_reference: z.string(), session_id: z.string(), status: z.string(), duplicate: z.boolean() })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'SESSION_NOT_FOUND', 'SESSION_ALREADY_COMPLETED'],
  }),
];
