import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export type ConfirmationOutcome = 'accepted' | 'refused';

/**
 * A credit-confirmed callback as received from a creditor bank: accepted ones are unique per
 * payment_reference (the deduplication key), refused ones stay as an audit trail.
 */
@Entity({ tableName: 'credit_confirmations' })
export class CreditConfirmationEntity {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: bigint;

  @Property({ type: 'text' })
  paymentReference!: string;

  @Property({ type: 'text' })
  sessionId!: string;

  /** The bank whose internal key sent it. */
  @Property({ type: 'text' })
  bankHandle!: string;

  @Property({ type: 'text' })
  creditorIban!: string;

  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: string;

  @Property({ type: 'text' })
  rrn!: string;

  @Property({ type: 'text' })
  outcome!: ConfirmationOutcome;

  @Property({ type: 'text', nullable: true })
  reason: string | null = null;

  @Property({ type: 'timestamptz' })
  receivedAt!: Date;
}
