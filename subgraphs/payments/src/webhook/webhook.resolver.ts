import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { pageInfoOf, type SubgraphContext } from '@gateway/federation';
import { WebhookDeliveryFilter } from '../listing/delivery-filter.input';
import { webhookAudienceOf } from './webhook-audience';
import { DEFAULT_PAGE_SIZE, type WebhookDeliveryService } from './webhook.service';
import {
  toWebhookAttempt,
  toWebhookDelivery,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryConnection,
} from './webhook.type';

/**
 * Deliveries are their audience's own business: a merchant's API key sees and retries the
 * merchant's, a TPP's access token (tpk_) the TPP's Open Banking ones, an admin key the
 * operator's and a bank key its bank's liquidity ones. The audience comes from the principal, so
 * no credential ever reaches another's (WEBHOOK_DELIVERY_NOT_FOUND).
 */
const audienceOf = (context: SubgraphContext): string => webhookAudienceOf(context).audienceId;

export function createWebhookResolver(service: WebhookDeliveryService) {
  @Resolver(() => WebhookDelivery)
  class WebhookResolver {
    @Query(() => WebhookDeliveryConnection, {
      description:
        "The caller's webhook deliveries, newest first: a merchant's (API key), a TPP's (tpk_ token), the operator's (admin key) or a bank's (bank key).",
    })
    async webhookDeliveries(
      @Arg('first', () => Int, { defaultValue: DEFAULT_PAGE_SIZE, description: 'Page size, 1 to 100.' }) first: number,
      @Arg('after', () => ID, { nullable: true, description: 'endCursor of the previous page.' }) after: string | null,
      @Arg('aggregateId', () => ID, {
        nullable: true,
        description: "Only the deliveries of this session's (ops_…), mandate's or consent's events.",
      })
      aggregateId: string | null,
      @Arg('filter', () => WebhookDeliveryFilter, {
        nullable: true,
        description:
          'Which deliveries to keep (status, created range, event kind); bad values are VALIDATION_ERROR naming the field.',
      })
      filter: WebhookDeliveryFilter | null,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookDeliveryConnection> {
      const page = await service.list(context.em, audienceOf(context), first, after, aggregateId, filter);
      const edges = page.deliveries.map((delivery) => ({ cursor: delivery.id, node: toWebhookDelivery(delivery) }));
      return {
        edges,
        pageInfo: pageInfoOf(edges, page.hasMore),
      };
    }

    @Query(() => WebhookDelivery, {
      description: "One of the caller's webhook deliveries; WEBHOOK_DELIVERY_NOT_FOUND otherwise.",
    })
    async webhookDelivery(
      @Arg('id', () => ID, { description: 'Delivery id (whd_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookDelivery> {
      return toWebhookDelivery(await service.find(context.em, audienceOf(context), id));
    }

    @Mutation(() => WebhookDelivery, {
      description:
        "Sends one of the caller's deliveries again now (any status; the event id stays the same), signed with the current secret.",
    })
    async retryWebhookDelivery(
      @Arg('id', () => ID, { description: 'Delivery id (whd_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookDelivery> {
      const delivery = await service.retry(context.em, audienceOf(context), id);
      context.logger.info({ delivery: id }, 'webhook delivery retried by hand');
      return toWebhookDelivery(delivery);
    }

    @FieldResolver(() => [WebhookAttempt], { description: 'Every attempt so far, oldest first.' })
    async history(@Root() delivery: WebhookDelivery, @Ctx() context: SubgraphContext): Promise<WebhookAttempt[]> {
      return (await service.attempts(context.em, delivery.id)).map(toWebhookAttempt);
    }
  }
  return WebhookResolver;
}
