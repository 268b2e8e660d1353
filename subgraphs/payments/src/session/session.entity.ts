import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';
import type { Metadata } from '../metadata/metadata.rules';
import type { SessionStatus } from './session.transitions';

export type DestinationType = 'alias' | 'iban';
export type SettlementType = 'internal' | 'rail';

/**
 * A merchant's payment session (database shape; the graph shape is session.type.ts). Status
 * changes only through session.transitions.ts; the engine's own progress lives in
 * payment_executions.
 */
@Entity({ tableName: 'payment_sessions' })
export class PaymentSessionEntity {
  /** ops_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  /** livemode false: a test object (a test merchant's); its money moves at test cores only. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  status!: SessionStatus;

  /** Minor units. */
  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: Currency;

  /**
   * Minor units given back by refunds not FAILED (refund/): taken by a refund's creation, in its
   * statement, only while it stays within `amount`; given back by its FAILED move.
   */
  @Property({ type: 'bigint' })
  amountRefunded: bigint = 0n;

  /** As the merchant gave it: an alias (handle or handle@bank) or an IBAN. */
  @Property({ type: 'text' })
  destinationType!: DestinationType;

  @Property({ type: 'text' })
  destinationValue!: string;

  /** Resolved once, at creation: where the money goes, whatever happens to the alias later. */
  @Property({ type: 'text' })
  creditorIban!: string;

  @Property({ type: 'text' })
  creditorBank!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** The merchant's own reference, returned in payment.completed. */
  @Property({ type: 'text', nullable: true })
  reference: string | null = null;

  /** The merchant's own key-value pairs (metadata/): never shown to the payer; changed by the owner's metadata UPDATE. */
  @Property({ type: 'json' })
  metadata: Metadata = {};

  @Property({ type: 'text', nullable: true })
  redirectUrl: string | null = null;

  @Property({ type: 'text', nullable: true })
  webhookUrl: string | null = null;

  @Property({ type: 'text' })
  checkoutUrl!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  /** Known once the payer has authenticated. */
  @Property({ type: 'text', nullable: true })
  debtorBank: string | null = null;

  /** internal (same bank) or rail (cross bank); decided when the payer is known. */
  @Property({ type: 'text', nullable: true })
  settlementType: SettlementType | null = null;

  /** Spec error code of a FAILED session (OTP_INVALID, INSUFFICIENT_FUNDS, CBS_TIMEOUT, CBS_ERROR). */
  @Property({ type: 'text', nullable: true })
  failureCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  failureDetail: string | null = null;

  @Property({ type: 'integer' })
  otpFailures = 0;

  /**
   * OTP checks at the payer's bank under way for this session (each arrived before expires_at):
   * while one is, the session is not expired (the payer authorized in time; the bank, or the
   * machine, is slow to say so).
   */
  @Property({ type: 'integer' })
  checkoutChecksInFlight = 0;

  /** When the latest OTP check still under way arrived: one left counted by a crashed process lapses after CHECKOUT_CHECK_GRACE_MS. */
  @Property({ type: 'timestamptz', nullable: true })
  checkoutCheckArrivedAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  processingAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  settlementPendingAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  failedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  expiredAt: Date | null = null;
}
