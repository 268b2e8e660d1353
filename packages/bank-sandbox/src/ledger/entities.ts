import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/core';

/**
 * The sandbox ledger. Several sandbox banks may share one process and one schema, so every row
 * carries its bank's handle and every lookup filters on it.
 */
@Entity({ tableName: 'customers' })
export class SandboxCustomer {
  @PrimaryKey({ type: 'text' })
  bankHandle!: string;

  @PrimaryKey({ type: 'text' })
  customerRef!: string;

  /** SHA-256 of the customer's current OTP; null until one is set. */
  @Property({ type: 'text', nullable: true })
  otpHash?: string | null;

  @Property({ type: 'datetime' })
  createdAt!: Date;
}

@Entity({ tableName: 'accounts' })
@Unique({ properties: ['bankHandle', 'iban'] })
export class SandboxAccountRow {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  bankHandle!: string;

  @Property({ type: 'text' })
  iban!: string;

  @Property({ type: 'text' })
  customerRef!: string;

  @Property({ type: 'text' })
  holderName!: string;

  @Property({ type: 'text' })
  currency!: string;

  /** Minor units; the database refuses a negative balance. */
  @Property({ type: 'bigint' })
  balance!: bigint;

  @Property({ type: 'datetime' })
  createdAt!: Date;
}

export type Operation = 'DEBIT' | 'CREDIT';
export type ConfirmationStatus = 'PENDING' | 'CONFIRMED' | 'REJECTED' | 'FAILED';

@Entity({ tableName: 'transactions' })
@Unique({ properties: ['bankHandle', 'operation', 'reference'] })
@Index({ properties: ['bankHandle', 'iban', 'bookedAt'] })
export class SandboxTransactionRow {
  @PrimaryKey({ type: 'text' })
  transactionId!: string;

  @Property({ type: 'text' })
  bankHandle!: string;

  @Property({ type: 'text' })
  operation!: Operation;

  /** The caller's reference (the gateway's session id): the deduplication key with operation. */
  @Property({ type: 'text' })
  reference!: string;

  @Property({ type: 'text' })
  iban!: string;

  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: string;

  @Property({ type: 'text' })
  description!: string;

  /** Rail credits: the handle of the bank the money comes from. */
  @Property({ type: 'text', nullable: true })
  debtorBank?: string | null;

  @Property({ type: 'text', nullable: true })
  sessionId?: string | null;

  /** Rail credits: retrieval reference number, kept for reconciliation. */
  @Property({ type: 'text', nullable: true })
  rrn?: string | null;

  @Property({ type: 'bigint', nullable: true })
  balanceAfter?: bigint | null;

  /** The booking date is the UTC date of this instant. */
  @Property({ type: 'datetime' })
  bookedAt!: Date;

  /** Rail credits: state of the credit-confirmed callback to the gateway. */
  @Property({ type: 'text', nullable: true })
  confirmationStatus?: ConfirmationStatus | null;

  @Property({ type: 'integer' })
  confirmationAttempts!: number;

  @Property({ type: 'datetime', nullable: true })
  confirmedAt?: Date | null;
}

export const ledgerEntities = [SandboxCustomer, SandboxAccountRow, SandboxTransactionRow];
