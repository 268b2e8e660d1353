import { Entity, Property } from '@mikro-orm/core';
import { EngineMovementColumns } from '../movement/movement.columns';
import type { Metadata } from '../metadata/metadata.rules';

/**
 * A merchant's refund of a COMPLETED payment session or mandate charge (API-CONTRACT "Refunds and
 * ending a session early"): a movement the payment engine executes like any other (execution kind
 * `refund`), from the merchant's settlement_iban at its bank (the debtor) to the payer's account
 * (the creditor): the one recorded when the session was authorized, or the charge's debtor account.
 * Livemode and currency are the session's or the charge's. Exactly one of sessionId and chargeId
 * is set (a check constraint). Changed only through refund.moves.ts.
 */
@Entity({ tableName: 'refunds' })
export class RefundEntity extends EngineMovementColumns {
  /** The session refunded (ops_…); null for a charge's refund. */
  @Property({ type: 'text', nullable: true })
  sessionId: string | null = null;

  /** The mandate charge refunded (chg_…); null for a session's refund. */
  @Property({ type: 'text', nullable: true })
  chargeId: string | null = null;

  /** The refunded charge's mandate (mdt_…), with chargeId. */
  @Property({ type: 'text', nullable: true })
  mandateId: string | null = null;

  @Property({ type: 'text' })
  merchantId!: string;

  /** Why the merchant gives the money back, as it said (shown to nobody else). */
  @Property({ type: 'text', nullable: true })
  reason: string | null = null;

  /** The merchant's own reference, returned in refund.completed / refund.failed. */
  @Property({ type: 'text', nullable: true })
  reference: string | null = null;

  /** The merchant's own key-value pairs (metadata/): never shown to the payer; changed by the owner's metadata UPDATE. */
  @Property({ type: 'json' })
  metadata: Metadata = {};
}
