import { Field, ID, Int, ObjectType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import { ALL_EVENTS } from '../webhook/event-kinds';
import type { WebhookEndpointEntity } from './webhook-endpoint.entity';

@ObjectType('WebhookEndpoint', {
  description:
    "Where a merchant's or TPP's webhooks go: its primary endpoint (the webhook_url) or one it added, each with its own secret, event filter and delivery order.",
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

  @Field({ description: "Its world: it gets only the events of the credential's world that created it." })
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

@ObjectType({ description: 'What a replay queued.' })
export class WebhookReplay {
  @Field(() => Int, { description: 'How many events are sent again (0 for a range with none).' })
  replayed!: number;
}

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
