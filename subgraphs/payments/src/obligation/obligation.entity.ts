import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';

/**
 * What one bank owes another for one cross-bank payment: the creditor bank credited its customer
 * on behalf of the debtor bank, which holds the debited funds. Settlement nets the rows without
 * a cycle per bank and currency, then stamps them with the cycle.
 */
@Entity({ tableName: 'interbank_obligations' })
export class InterbankObligationEntity {
  /** obl_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  /** One obligation per session (unique): recording it twice is a no-op. */
  @Property({ type: 'text', unique: true })
  sessionId!: string;

  /** The world of its movement: a cycle nets the obligations of one world only. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  /** Owes the amount: the payer's bank. */
  @Property({ type: 'text' })
  debtorBank!: string;

  /** Is owed the amount: the payee's bank. */
  @Property({ type: 'text' })
  creditorBank!: string;

  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: Currency;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'text', nullable: true })
  settlementCycleId: string | null = null;
}
