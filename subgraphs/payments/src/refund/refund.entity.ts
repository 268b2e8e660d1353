import { Entity, Property } from '@mikro-orm/core';
import { EngineMovementColumns } from '../movement/movement.columns';
import type { Metadata } from '../metadata/metadata.rules';

/**
 * A merchant's refund of a COMPLETED payment session (API-CONTRACT "Refunds and ending a session
 * early"): a movement the payment engine executes like any other (execution kind `refund`), from
 * the merchant's settlement_iban at its bank (the debtor) to the payer's account recorded when the
 * session was authorized (the creditor). Livemode and currency are the session's. Changed only
 * through refund.moves.ts.
 */
@Entity({ tableName: 'refunds' })
export class RefundEntity extends EngineMovementColumns {
  /** The session refunded (ops_…). */
  @Property({ type: 'text' })
  sessionId!: string;

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
