import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import { ALL_EVENTS } from '../webhook/event-kinds';
import type { WebhookEndpointEntity } from './webhook-endpoint.entity';
import type { ReplayReason } from './webhook-replay';

@ObjectType('WebhookEndpoint', {
  description:
    "Where a merchant's, TPP's, the operator's or a bank's webhooks go: a merchant's or TPP's primary endpoint (the webhook_url) or one its owner added, each with its own secret, event filter and delivery order.",
})
export class WebhookEndpoint {
  @Field(() => ID, { description: 'Endpoint id (we_…); the primary endpoint is we_ followed by the owner id.' })
  id!: string;

  @Field({ description: 'Where its deliveries go.' })
  url!: string;

  @Field(() => [String], { description: 'Event kinds it gets, or ["*"] for all.' })
  enabledEvents!: string[];

  @Field(() => String, { nullable: true, description: 'What it is for.' })
  description!: string | null;

  @Field({ description: 'ENABLED or DISABLED (a disabled endpoint gets no deliveries).' })
  status!: string;

  @Field({
    description:
      "Its world: it gets only that world's events (a merchant's or TPP's: its credential's world; the operator's or a bank's: the mode it was created with).",
  })
  livemode!: boolean;

  @Field({ description: 'When it was added (for the primary endpoint: when its owner was registered).' })
  createdAt!: Date;

  @Field({
    description:
      "Whether this is the owner's webhook_url acting as its first endpoint (all events, the owner's webhook secret). It changes with the merchant's or TPP's webhook_url, not here.",
  })
  primary!: boolean;
}

@ObjectType({ description: 'A new webhook endpoint and its signing secret, shown this once.' })
export class CreatedWebhookEndpoint {
  @Field(() => WebhookEndpoint, { description: 'The endpoint.' })
  endpoint!: WebhookEndpoint;

  @Field({ description: 'Its signing secret (whsec_…): X-Service-Signature and Standard Webhooks. Not shown again.' })
  secret!: string;
}

export enum WebhookReplayReason {
  ENDPOINT_DISABLED = 'ENDPOINT_DISABLED',
  NO_EVENTS = 'NO_EVENTS',
  NOTHING_FAILED = 'NOTHING_FAILED',
  ALREADY_SENT = 'ALREADY_SENT',
}
registerEnumType(WebhookReplayReason, {
  name: 'WebhookReplayReason',
  description: 'Why a replay sent nothing.',
  valuesConfig: {
    ENDPOINT_DISABLED: { description: 'The endpoint is disabled: enable it first.' },
    NO_EVENTS: { description: 'The window holds no event this endpoint takes (its world and event filter).' },
    NOTHING_FAILED: {
      description:
        'Only failed deliveries were asked for, and none of the window failed: each was delivered or is on its way.',
    },
    ALREADY_SENT: {
      description:
        'Every event of the window was delivered to it or is on its way; a delivered one is sent again only to a new endpoint (added in the last 24 hours).',
    },
  },
});

@ObjectType({ description: 'What a replay queued, what it left out and why.' })
export class WebhookReplay {
  @Field(() => Int, { description: 'How many events are sent again (0: see reason).' })
  replayed!: number;

  @Field(() => Int, { description: 'Events of the window this endpoint takes (its world and event filter).' })
  events!: number;

  @Field(() => Int, {
    description:
      'Delivered to it already and not sent again: only a new endpoint (added in the last 24 hours) asking for all events gets those again.',
  })
  skippedDelivered!: number;

  @Field(() => Int, { description: 'Still on their way to it (PENDING or HELD): never queued twice.' })
  skippedPending!: number;

  @Field(() => WebhookReplayReason, { nullable: true, description: 'Why nothing was sent; null when some were.' })
  reason!: WebhookReplayReason | null;
}

/** The replay's outcome as the graph shows it (the reasons are the enum's values). */
export const toWebhookReplay = (outcome: {
  replayed: number;
  events: number;
  skippedDelivered: number;
  skippedPending: number;
  reason: ReplayReason | null;
}): WebhookReplay => ({ ...outcome, reason: outcome.reason ? WebhookReplayReason[outcome.reason] : null });

@ObjectType({ description: 'One endpoint of a page, with the cursor that continues after it.' })
export class WebhookEndpointEdge {
  @Field({ description: 'Pass as `after` to continue after this endpoint.' })
  cursor!: string;

  @Field(() => WebhookEndpoint, { description: 'The endpoint.' })
  node!: WebhookEndpoint;
}

@ObjectType({ description: "A page of the caller's webhook endpoints, the primary one first, then oldest first." })
export class WebhookEndpointConnection {
  @Field(() => [WebhookEndpointEdge], { description: 'The endpoints of this page.' })
  edges!: WebhookEndpointEdge[];

  @Field(() => PageInfo, { description: 'Where this page sits in the whole list.' })
  pageInfo!: PageInfo;
}

export const toWebhookEndpoint = (entity: WebhookEndpointEntity): WebhookEndpoint => ({
  id: entity.id,
  url: entity.url,
  enabledEvents: entity.enabledEvents,
  description: entity.description,
  status: entity.status,
  livemode: entity.livemode,
  createdAt: entity.createdAt,
  primary: false,
});

/** The audience's webhook_url as its first endpoint. */
export const primaryEndpoint = (id: string, url: string, livemode: boolean, createdAt: Date): WebhookEndpoint => ({
  id,
  url,
  enabledEvents: [ALL_EVENTS],
  description: 'The webhook_url (primary endpoint)',
  status: 'ENABLED',
  livemode,
  createdAt,
  primary: true,
});
