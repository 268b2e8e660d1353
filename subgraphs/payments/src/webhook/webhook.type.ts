import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import type { DeliveryStatus, WebhookAttemptEntity, WebhookDeliveryEntity } from './webhook-delivery.entity';

export enum WebhookDeliveryStatus {
  PENDING = 'PENDING',
  HELD = 'HELD',
  DELIVERED = 'DELIVERED',
  FAILED = 'FAILED',
}
registerEnumType(WebhookDeliveryStatus, {
  name: 'WebhookDeliveryStatus',
  description: 'Where a webhook delivery stands; DELIVERED and FAILED are final (a retry or a replay sends it again).',
  valuesConfig: {
    PENDING: { description: 'Attempts to come: the next at nextAttemptAt.' },
    HELD: {
      description:
        'Waiting while its owner (merchant or TPP) is suspended by the operator: not sent, not retried, no attempt counted. On resume it goes out once, in order per session.',
    },
    DELIVERED: { description: 'A 2xx answer came.' },
    FAILED: { description: 'Retries spent, or its endpoint was disabled or deleted: retry it by hand or replay it.' },
  },
});

/** The entity's status is one of the enum's values (DELIVERY_STATUSES). */
const statusOf = (status: DeliveryStatus): WebhookDeliveryStatus => WebhookDeliveryStatus[status];

@ObjectType('WebhookDelivery', {
  description:
    "One event on its way to a webhook endpoint (the merchant's; for Open Banking events the TPP's; for liquidity events the operator's or the bank's), with its attempts.",
})
export class WebhookDelivery {
  @Field(() => ID, { description: 'Delivery id (whd_…).' })
  id!: string;

  @Field(() => ID, { description: 'The event (evt_…): X-Service-Event-Id and webhook-id, the same on every attempt.' })
  eventId!: string;

  @Field(() => ID, {
    description: "The endpoint it goes to (we_…): the owner's primary endpoint (its webhook_url) or one it added.",
  })
  endpointId!: string;

  @Field({ description: "The event's world: false for a test object's event (the envelope's livemode)." })
  livemode!: boolean;

  @Field({ description: 'Event kind, e.g. payment.completed or consent.granted.' })
  event!: string;

  @Field(() => ID, {
    description:
      "What the event is about: the payment session (ops_…), mandate (mdt_…), consent or payment order; for a liquidity event the bank's position (<handle>:<currency>, the operator's operator:<handle>:<currency>).",
  })
  aggregateId!: string;

  @Field(() => String, { nullable: true, description: 'Where the last attempt went; null before the first.' })
  url!: string | null;

  @Field(() => WebhookDeliveryStatus, {
    description:
      'PENDING (more attempts to come), HELD (its owner is suspended: it waits, unattempted), DELIVERED (a 2xx answer) or FAILED (retries spent; retry by hand).',
  })
  status!: WebhookDeliveryStatus;

  @Field(() => Int, { description: 'Attempts made so far.' })
  attempts!: number;

  @Field(() => Int, { nullable: true, description: 'HTTP status of the last attempt; null when it got no answer.' })
  lastStatusCode!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Why the last attempt got no answer: a timeout, a failed connection, or 'target refused: not a public address' when the URL's host is not a public address " +
      '(nothing is sent there; PRIVATE_TARGETS allows loopback and private networks).',
  })
  lastError!: string | null;

  @Field(() => Date, {
    nullable: true,
    description: 'When the next attempt is due; null while HELD and once DELIVERED or FAILED.',
  })
  nextAttemptAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When a 2xx answer came.' })
  deliveredAt!: Date | null;

  @Field({ description: 'When the event was taken in for delivery (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field({ description: 'The exact JSON body sent on every attempt: {id, event, created_at, data}.' })
  payload!: string;
}

@ObjectType('WebhookAttempt', { description: 'One HTTP attempt of a webhook delivery.' })
export class WebhookAttempt {
  @Field(() => Int, { description: '1 for the first attempt.' })
  number!: number;

  @Field(() => String, { nullable: true, description: 'Where it went.' })
  url!: string | null;

  @Field({ description: 'When it started (ISO 8601 UTC).' })
  startedAt!: Date;

  @Field(() => Int, { description: 'How long it took, in milliseconds.' })
  durationMs!: number;

  @Field(() => Int, { nullable: true, description: "The receiver's HTTP status; null when no answer came." })
  statusCode!: number | null;

  @Field(() => String, { nullable: true, description: 'Why no answer came.' })
  error!: string | null;
}

@ObjectType({ description: 'One delivery of a page, with the cursor that continues after it.' })
export class WebhookDeliveryEdge {
  @Field({ description: 'Pass as `after` to continue after this delivery.' })
  cursor!: string;

  @Field(() => WebhookDelivery, { description: 'The delivery.' })
  node!: WebhookDelivery;
}

@ObjectType({
  description: "A page of the caller's (merchant's or TPP's) webhook deliveries, newest first (Relay connection).",
})
export class WebhookDeliveryConnection {
  @Field(() => [WebhookDeliveryEdge], { description: 'The deliveries of this page.' })
  edges!: WebhookDeliveryEdge[];

  @Field(() => PageInfo, { description: 'Where this page sits in the whole list.' })
  pageInfo!: PageInfo;
}

export const toWebhookDelivery = (entity: WebhookDeliveryEntity): WebhookDelivery => ({
  id: entity.id,
  eventId: entity.eventId,
  endpointId: entity.endpointId,
  livemode: entity.livemode,
  event: entity.eventKind,
  aggregateId: entity.aggregateId,
  url: entity.url,
  status: statusOf(entity.status),
  attempts: entity.attempts,
  lastStatusCode: entity.lastStatusCode,
  lastError: entity.lastError,
  nextAttemptAt: entity.nextAttemptAt,
  deliveredAt: entity.deliveredAt,
  createdAt: entity.createdAt,
  payload: entity.payload,
});

export const toWebhookAttempt = (entity: WebhookAttemptEntity): WebhookAttempt => ({
  number: entity.number,
  url: entity.url,
  startedAt: entity.startedAt,
  durationMs: entity.durationMs,
  statusCode: entity.statusCode,
  error: entity.error,
});
