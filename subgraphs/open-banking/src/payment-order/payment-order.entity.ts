import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';
import type { PaymentOrderStatus } from './payment-order.transitions';

/**
 * A TPP's payment order from a consented account (database shape; the graph shape is
 * payment-order.type.ts). Status changes only through payment-order.moves.ts. The money itself
 * is moved by the payments engine (movement.requested with this id); the order records what
 * the engine answered.
 */
@Entity({ tableName: 'payment_orders' })
export class PaymentOrderEntity {
  /** po_…: also the movement's core reference at both banks. */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  tppId!: string;

  @Property({ type: 'text' })
  consentId!: string;

  /** Its consent's world: a test order's money moves at test cores only. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  /** The consented account (acc_…) the TPP named. */
  @Property({ type: 'text' })
  sourceAccountId!: string;

  @Property({ type: 'text' })
  debtorIban!: string;

  @Property({ type: 'text' })
  debtorBank!: string;

  /** Destination as sent (type iban). */
  @Property({ type: 'text' })
  destinationType!: string;

  @Property({ type: 'text' })
  creditorIban!: string;

  /** The bank the destination IBAN's institution code routes to. */
  @Property({ type: 'text' })
  creditorBank!: string;

  /** Minor units. */
  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: Currency;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'text' })
  status!: PaymentOrderStatus;

  /** The SCA page, for an order above the source bank's sca_exemption_limit; null otherwise. */
  @Property({ type: 'text', nullable: true })
  scaUrl: string | null = null;

  /** Why the order FAILED or was REJECTED (a spec code). */
  @Property({ type: 'text', nullable: true })
  failureCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  failureDetail: string | null = null;

  /** internal (same bank) or rail (cross bank), once the engine has executed it. */
  @Property({ type: 'text', nullable: true })
  settlementType: string | null = null;

  /** The request that created (or authorised) the order: its core calls carry it. */
  @Property({ type: 'text', nullable: true })
  requestId: string | null = null;

  /** Wrong one-time passwords given at the SCA page; the third fails the order. */
  @Property({ type: 'integer' })
  scaOtpFailures = 0;

  /**
   * OTP checks at the payer's bank under way for this order (each arrived before the SCA deadline):
   * while one is, the order is not expired (the customer authorised in time; the bank, or the
   * machine, is slow to say so).
   */
  @Property({ type: 'integer' })
  scaChecksInFlight = 0;

  /** When the latest OTP check still under way arrived: one left counted by a crashed process lapses after the SCA authorisation grace. */
  @Property({ type: 'timestamptz', nullable: true })
  scaCheckArrivedAt: Date | null = null;

  /** HMAC (platform secret) of the OTP that passed SCA: the same authorisation sent again (a lost answer) is told where the order stands. */
  @Property({ type: 'text', nullable: true })
  scaAuthorisationHash: string | null = null;

  /** When movement.requested was last written: the sweeper asks again after a while without an answer. */
  @Property({ type: 'timestamptz', nullable: true })
  movementRequestedAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  processingAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  failedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  rejectedAt: Date | null = null;
}
