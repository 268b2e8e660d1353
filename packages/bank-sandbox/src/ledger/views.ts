import type { Currency } from '@gateway/kernel';
import type { ConfirmationStatus, Operation, SandboxAccountRow, SandboxTransactionRow } from './entities';

/** An account as the in-process API and the admin API show it. */
export interface SandboxAccount {
  iban: string;
  customerRef: string;
  holderName: string;
  currency: Currency;
  /** Minor units. */
  balance: number;
}

export interface SandboxTransaction {
  transactionId: string;
  operation: Operation;
  reference: string;
  iban: string;
  amount: number;
  currency: Currency;
  description: string;
  /** Always null now: the gateway no longer says which bank a credit comes from (column kept). */
  debtorBank: string | null;
  /** Rail credits: the session id the credit-confirmed names (the reference). */
  sessionId: string | null;
  rrn: string | null;
  balanceAfter: number | null;
  bookedAt: Date;
  /** UTC date of bookedAt, YYYY-MM-DD. */
  bookingDate: string;
  confirmationStatus: ConfirmationStatus | null;
  /** Rail credits: credit-confirmed attempts made so far. */
  confirmationAttempts: number;
}

export const bookingDateOf = (instant: Date): string => instant.toISOString().slice(0, 10);

/** Balances never leave the safe-integer range (credits refuse to go past it), so Number() is exact. */
export const toAccountView = (row: SandboxAccountRow): SandboxAccount => ({
  iban: row.iban,
  customerRef: row.customerRef,
  holderName: row.holderName,
  currency: row.currency as Currency,
  balance: Number(row.balance),
});

export const toTransactionView = (row: SandboxTransactionRow): SandboxTransaction => ({
  transactionId: row.transactionId,
  operation: row.operation,
  reference: row.reference,
  iban: row.iban,
  amount: Number(row.amount),
  currency: row.currency as Currency,
  description: row.description,
  debtorBank: row.debtorBank ?? null,
  sessionId: row.sessionId ?? null,
  rrn: row.rrn ?? null,
  balanceAfter: row.balanceAfter === null || row.balanceAfter === undefined ? null : Number(row.balanceAfter),
  bookedAt: row.bookedAt,
  bookingDate: bookingDateOf(row.bookedAt),
  confirmationStatus: row.confirmationStatus ?? null,
  confirmationAttempts: row.confirmationAttempts,
});
