import type { SandboxAccount, SandboxTransaction } from '../ledger/views';

/** Wire shapes (snake_case) of the core interface and the admin API. */
export const accountBody = (account: SandboxAccount) => ({
  iban: account.iban,
  holder_name: account.holderName,
  customer_ref: account.customerRef,
  balance: account.balance,
  currency: account.currency,
});

export const movementAnswer = (transaction: SandboxTransaction) => ({
  transaction_id: transaction.transactionId,
  reference: transaction.reference,
  iban: transaction.iban,
  amount: transaction.amount,
  currency: transaction.currency,
  balance_after: transaction.balanceAfter,
  booked_at: transaction.bookedAt.toISOString(),
});

export const statementLine = (transaction: SandboxTransaction) => ({
  transaction_id: transaction.transactionId,
  booking_date: transaction.bookingDate,
  amount: transaction.amount,
  currency: transaction.currency,
  credit_debit_indicator: transaction.operation,
  description: transaction.description,
  reference: transaction.reference,
});

export const ledgerLine = (transaction: SandboxTransaction) => ({
  ...statementLine(transaction),
  iban: transaction.iban,
  balance_after: transaction.balanceAfter,
  booked_at: transaction.bookedAt.toISOString(),
  debtor_bank: transaction.debtorBank,
  session_id: transaction.sessionId,
  rrn: transaction.rrn,
  confirmation_status: transaction.confirmationStatus,
});
