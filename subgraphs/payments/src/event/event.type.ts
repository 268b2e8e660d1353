import { Field, ID, Int, ObjectType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import type { WebhookEventEntity } from '../webhook/webhook-event.entity';

@ObjectType('Event', {
  description:
    "One of the caller's webhook events (a merchant's payment, refund and mandate events, a TPP's Open Banking events), kept 30 days, with its deliveries.",
})
export class Event {
  @Field(() => ID, { description: 'Event id (evt_…): X-Service-Event-Id and webhook-id of its deliveries.' })
  id!: string;

  @Field({ description: 'Event kind, e.g. payment.completed.' })
  type!: string;

  @Field({ description: 'When it happened (ISO 8601 UTC): the envelope created_at.' })
  createdAt!: Date;

  @Field({ description: "Its world: false for a test object's event." })
  livemode!: boolean;

  @Field(() => Int, {
    nullable: true,
    description: "Its place among its session's (mandate's, consent's, payment order's) events, from 1.",
  })
  sequence!: number | null;

  @Field(() => ID, { description: 'What it is about: the session (ops_…), refund, mandate, consent or payment order.' })
  aggregateId!: string;

  @Field({ description: "The envelope's data, as JSON text." })
  data!: string;
}

@ObjectType({ description: 'One event of a page, with the cursor that continues after it.' })
export class EventEdge {
  @Field({ description: 'Pass as `after` to continue after this event.' })
  cursor!: string;

  @Field(() => Event, { description: 'The event.' })
  node!: Event;
}

@ObjectType({ description: "A page of the caller's events, newest first (Relay connection)." })
export class EventConnection {
  @Field(() => [EventEdge], { description: 'The events of this page.' })
  edges!: EventEdge[];

  @Field(() => PageInfo, { description: 'Where this page sits in the whole list.' })
  pageInfo!: PageInfo;
}

export const toEvent = (entity: WebhookEventEntity): Event => ({
  id: entity.id,
  type: entity.kind,
  createdAt: entity.createdAt,
  livemode: entity.livemode,
  sequence: entity.sequence,
  aggregateId: entity.aggregateId,
  data: JSON.stringify((JSON.parse(entity.payload) as { data?: unknown }).data ?? {}),
});
