import type { CreditConfirmedBody } from '@gateway/bank-sandbox';
import type { CreditConfirmationInput } from './confirmation.input';

/** The built-in test bank's credit-confirmed body as the GraphQL input the router would have made of it. */
export const testConfirmationInput = (body: CreditConfirmedBody): CreditConfirmationInput => ({
  paymentReference: body.payment_reference,
  sessionId: body.session_id,
  creditorIban: body.creditor_iban,
  amount: body.amount,
  currency: body.currency,
  rrn: body.rrn,
});
