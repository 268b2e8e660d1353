import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One webhook-able event of an audience (a merchant's or TPP's), kept 30 days whether or not any
 * endpoint got it: GET /events, and replay to an endpoint. Written with its deliveries in one
 * statement by the intake (delivery.repository.ts), pruned by the event-retention job.
 */
@Entity({ tableName: 'webhook_events' })
export class WebhookEventEntity {
  /** evt_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  audienceId!: string;

  /** e.g. payment.completed */
  @Property({ type: 'text' })
  kind!: string;

  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  aggregateId!: string;

  @Property({ type: 'integer', nullable: true })
  sequence: number | null = null;

  /** The envelope {id, event, created_at, livemode, sequence, data}, exactly as every delivery sends it. */
  @Property({ type: 'text' })
  payload!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
