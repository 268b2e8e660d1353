import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { EngineMovementColumns } from '../movement/movement.columns';
import type { Currency } from '@gateway/kernel';
import type { Metadata } from '../metadata/metadata.rules';
import type { MandateInterval } from './mandate.schedule';
import type { MandateStatus } from './mandate.transitions';

/**
 * A merchant's standing authority to charge a customer (API-CONTRACT "Mandates"). The customer is
 * resolved when the mandate is created (alias -> IBAN, bank, bank_customer_ref) and confirms with
 * an OTP checked by their bank; the acceptance is kept as evidence. Changed only through
 * mandate.moves.ts.
 */
@Entity({ tableName: 'mandates' })
export class MandateEntity {
  /** mdt_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  /** livemode false: a test merchant's mandate; test clocks move only these. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  status!: MandateStatus;

  /** As the merchant gave it. */
  @Property({ type: 'text' })
  customerAlias!: string;

  @Property({ type: 'text' })
  customerIban!: string;

  @Property({ type: 'text' })
  customerBank!: string;

  /** Never shown: how the customer's bank knows them (its OTP check). */
  @Property({ type: 'text' })
  customerRef!: string;

  /** The most one charge may take, in minor units. */
  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: Currency;

  @Property({ type: 'text' })
  interval!: MandateInterval;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** The merchant's own key-value pairs (metadata/): never shown to the payer; changed by the owner's metadata UPDATE. */
  @Property({ type: 'json' })
  metadata: Metadata = {};

  /** YYYY-MM-DD: no charge before it; periods count from it. */
  @Property({ type: 'text' })
  startDate!: string;

  @Property({ type: 'text' })
  confirmUrl!: string;

  @Property({ type: 'integer' })
  otpFailures: number = 0;

  /** HMAC of the OTP that confirmed it: the same confirmation sent again learns it is ACTIVE. */
  @Property({ type: 'text', nullable: true })
  confirmationHash: string | null = null;

  /** Evidence of the customer's acceptance (like Stripe's mandate customer_acceptance). */
  @Property({ type: 'timestamptz', nullable: true })
  acceptedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  acceptedIp: string | null = null;

  @Property({ type: 'text', nullable: true })
  acceptedUserAgent: string | null = null;

  /** merchant, customer or bank: who cancelled it. */
  @Property({ type: 'text', nullable: true })
  revokedBy: string | null = null;

  /** Test mode only: how far this mandate's clock runs ahead of the real one (a Stripe-like test clock). */
  @Property({ type: 'integer' })
  clockOffsetDays: number = 0;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  confirmedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  cancelledAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  failedAt: Date | null = null;
}

/**
 * One charge of a mandate: a movement from the customer's IBAN to the merchant's settlement_iban
 * that the payment engine executes like a session's (execution kind mandate_charge). Changed only
 * through mandate.moves.ts. Livemode is the mandate's; the amount at most the mandate's.
 */
@Entity({ tableName: 'mandate_charges' })
export class MandateChargeEntity extends EngineMovementColumns {
  @Property({ type: 'text' })
  mandateId!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  /** The merchant's reference. */
  @Property({ type: 'text' })
  reference!: string;

  /** YYYY-MM-DD: the first day of the interval period it is for (one live charge per period). */
  @Property({ type: 'text' })
  periodStart!: string;

  /** The merchant's own key-value pairs (metadata/): never shown to the payer; changed by the owner's metadata UPDATE. */
  @Property({ type: 'json' })
  metadata: Metadata = {};

  /**
   * Minor units given back by refunds not FAILED (refund/): taken by a refund's creation, in its
   * statement, and given back by its FAILED move (mandate.moves.ts); at most amount.
   */
  @Property({ type: 'bigint' })
  amountRefunded: bigint = 0n;
}
