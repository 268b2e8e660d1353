import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * PENDING: attempts to come (due at next_attempt_at); HELD: its owner (merchant or TPP) is
 * suspended by the operator, so it waits, unattempted, and is released as PENDING on resume;
 * DELIVERED: a 2xx answer; FAILED: retries spent.
 */
export const DELIVERY_STATUSES = ['PENDING', 'HELD', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event on its way to one webhook endpoint of its audience: a merchant's (payment events) or a
 * TPP's (Open Banking events). Database shape; the graph shape is webhook.type.ts. Created once
 * per event and endpoint whatever the bus redelivers, so a duplicate event never becomes a
 * second delivery.
 */
@Entity({ tableName: 'webhook_deliveries' })
export class WebhookDeliveryEntity {
  /** whd_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  /** evt_…: X-Service-Event-Id and webhook-id, the same on every attempt. */
  @Property({ type: 'text' })
  eventId!: string;

  /** e.g. payment.completed */
  @Property({ type: 'text' })
  eventKind!: string;

  /** Who the event is for, and who sees the delivery in its log: a merchant (mer_…) or a TPP (tpp_…). */
  @Property({ type: 'text' })
  audienceId!: string;

  /** The endpoint it goes to (we_…): one of the audience's, or its primary (its webhook_url). */
  @Property({ type: 'text' })
  endpointId!: string;

  /** The event's world (envelope livemode). */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  /** The session, consent or payment order (the aggregate) the event is about. */
  @Property({ type: 'text' })
  aggregateId!: string;

  /** The event's place among its aggregate's events (envelope `sequence`): a delivery waits for the earlier ones. */
  @Property({ type: 'integer', nullable: true })
  sequence: number | null = null;

  /** The exact body sent on every attempt: the envelope {id, event, created_at, data}. */
  @Property({ type: 'text' })
  payload!: string;

  /** Where the last attempt went (the target is looked up again on each attempt). */
  @Property({ type: 'text', nullable: true })
  url: string | null = null;

  @Property({ type: 'text' })
  status!: DeliveryStatus;

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'integer', nullable: true })
  lastStatusCode: number | null = null;

  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  /** When a PENDING delivery is tried next; null while HELD and once DELIVERED or FAILED. */
  @Property({ type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null = null;

  /**
   * A worker's claim on an attempt in flight, renewed while the attempt runs (lease/lease.ts);
   * another worker takes it over once it lapses.
   */
  @Property({ type: 'timestamptz', nullable: true })
  leaseUntil: Date | null = null;

  /**
   * The claiming worker's fencing token, new at every claim: its renewals and its record of the
   * attempt count only while it is still the row's, so a worker that was taken over (or whose
   * claim a manual retry dropped) never records.
   */
  @Property({ type: 'text', nullable: true })
  leaseToken: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  deliveredAt: Date | null = null;

  /**
   * When a replay queued it, until its next attempt is recorded: while one of an endpoint's
   * deliveries has it, a replay of that endpoint is under way (another one is refused).
   */
  @Property({ type: 'timestamptz', nullable: true })
  replayedAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}

/** One HTTP attempt of a delivery, kept for the audience's delivery log. */
@Entity({ tableName: 'webhook_attempts' })
export class WebhookAttemptEntity {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: bigint;

  @Property({ type: 'text' })
  deliveryId!: string;

  /** 1 for the first attempt. */
  @Property({ type: 'integer' })
  number!: number;

  @Property({ type: 'text', nullable: true })
  url: string | null = null;

  @Property({ type: 'timestamptz' })
  startedAt!: Date;

  @Property({ type: 'integer' })
  durationMs!: number;

  /** The receiver's HTTP status; null when no answer came (timeout, refused, unsafe target). */
  @Property({ type: 'integer', nullable: true })
  statusCode: number | null = null;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;
}
