import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';
import type { VrpPaymentStatus } from './vrp-payment.transitions';

/**
 * A payment a TPP made under a VRP consent (issue 51). Status changes only through
 * vrp-payment.moves.ts. The payments engine moves the money (movement.requested with this id,
 * its fifth movement kind); the payment records what the engine answered. A payment that is not
 * FAILED counts against its consent's limits: a failed one frees its share.
 */
@Entity({ tableName: 'vrp_payments' })
export class VrpPaymentEntity {
  /** vrp_…: also the movement's core reference at both banks. */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  consentId!: string;

  @Property({ type: 'text' })
  tppId!: string;

  /** Its consent's world. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  debtorIban!: string;

  @Property({ type: 'text' })
  debtorBank!: string;

  @Property({ type: 'text' })
  creditorIban!: string;

  @Property({ type: 'text' })
  creditorBank!: string;

  /** Minor units. */
  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: Currency;

  @Property({ type: 'text' })
  reference!: string;

  @Property({ type: 'text' })
  status!: VrpPaymentStatus;

  @Property({ type: 'text', nullable: true })
  failureCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  failureDetail: string | null = null;

  /** internal (same bank) or rail (cross bank), once the engine has executed it. */
  @Property({ type: 'text', nullable: true })
  settlementType: string | null = null;

  @Property({ type: 'text', nullable: true })
  requestId: string | null = null;

  /** When movement.requested was last written: the sweeper asks again after a while without an answer. */
  @Property({ type: 'timestamptz', nullable: true })
  movementRequestedAt: Date | null = null;

  /** When it was accepted: the period it counts in. */
  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  failedAt: Date | null = null;
}
