import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import { pageInfoOf, type ServiceClient, type SubgraphContext } from '@gateway/federation';
import { toWebhookDelivery, WebhookDelivery } from '../webhook/webhook.type';
import { webhookAudienceOf } from '../webhook/webhook-audience';
import { webhookOwnerOf } from '../webhook-endpoint/webhook-owner';
import type { EventService } from './event.service';
import { Event, EventConnection, toEvent } from './event.type';

/**
 * The caller's event log (API-CONTRACT: GET /events, GET /events/{id}): a merchant's (API key) or
 * a TPP's (tpk_ token), in the credential's world only; the operator's (admin key) or a bank's
 * (bank key: its own liquidity events), both worlds. Another's id, or the other world's for a
 * merchant or TPP, is EVENT_NOT_FOUND.
 */
export function createEventResolver(service: EventService, call: ServiceClient) {
  @Resolver(() => Event)
  class EventResolver {
    @Query(() => EventConnection, {
      description:
        "The caller's events of the last 30 days, newest first: a merchant's or TPP's in its credential's world; the operator's (admin key) or a bank's (bank key) liquidity events of both worlds, each marked by livemode.",
    })
    async events(
      @Arg('type', () => String, { nullable: true, description: 'Only this event kind, e.g. payment.completed.' })
      type: string | null,
      @Arg('from', () => String, { nullable: true, description: 'Created at or after (ISO 8601).' })
      from: string | null,
      @Arg('to', () => String, { nullable: true, description: 'Created before (ISO 8601).' }) to: string | null,
      @Arg('first', () => Int, { defaultValue: 20, description: 'Page size, 1 to 100.' }) first: number,
      @Arg('after', () => ID, { nullable: true, description: 'endCursor of the previous page.' }) after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<EventConnection> {
      const owner = await webhookOwnerOf(context, call);
      const page = await service.list(context.em, owner, { type, from, to }, first, after);
      const edges = page.events.map((event) => ({ cursor: event.id, node: toEvent(event) }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Query(() => Event, { description: "One of the caller's events; EVENT_NOT_FOUND otherwise." })
    async event(
      @Arg('id', () => ID, { description: 'Event id (evt_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Event> {
      return toEvent(await service.find(context.em, await webhookOwnerOf(context, call), id));
    }

    @FieldResolver(() => [WebhookDelivery], {
      description: 'Its deliveries, one per endpoint that got it (a replay sends the same one again), oldest first.',
    })
    async deliveries(@Root() event: Event, @Ctx() context: SubgraphContext): Promise<WebhookDelivery[]> {
      const { audienceId } = webhookAudienceOf(context);
      return (await service.deliveriesOf(context.em, { audienceId }, event.id)).map(toWebhookDelivery);
    }
  }
  return EventResolver;
}
