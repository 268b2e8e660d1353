import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { DEFAULT_PAGE_SIZE, type WebhookDeliveryService } from './webhook.service';
import { toWebhookAttempt, toWebhookDelivery, WebhookAttempt, WebhookDelivery, WebhookDeliveryConnection } from './webhook.type';

/** Deliveries are the merchant's own business: only its API key sees or retries them. */
const merchantOf = (context: SubgraphContext): string => requirePrincipal(context, ['merchant'], 'INVALID_API_KEY').id;

export function createWebhookResolver(service: WebhookDeliveryService) {
  @Resolver(() => WebhookDelivery)
  class WebhookResolver {
    @Query(() => WebhookDeliveryConnection, { description: "The calling merchant's webhook deliveries, newest first." })
    async webhookDeliveries(
      @Arg('first', () => Int, { defaultValue: DEFAULT_PAGE_SIZE, description: 'Page size, 1 to 100.' }) first: number,
      @Arg('after', () => ID, { nullable: true, description: 'endCursor of the previous page.' }) after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookDeliveryConnection> {
      const page = await service.list(context.em, merchantOf(context), first, after);
      const edges = page.deliveries.map((delivery) => ({ cursor: delivery.id, node: toWebhookDelivery(delivery) }));
      return {
        edges,
        pageInfo: pageInfoOf(edges, page.hasMore),
      };
    }

    @Query(() => WebhookDelivery, { description: "One of the calling merchant's webhook deliveries; WEBHOOK_DELIVERY_NOT_FOUND otherwise." })
    async webhookDelivery(@Arg('id', () => ID, { description: 'Delivery id (whd_…).' }) id: string, @Ctx() context: SubgraphContext): Promise<WebhookDelivery> {
      return toWebhookDelivery(await service.find(context.em, merchantOf(context), id));
    }

    @Mutation(() => WebhookDelivery, { description: 'Sends a delivery again now (any status; the event id stays the same).' })
    async retryWebhookDelivery(@Arg('id', () => ID, { description: 'Delivery id (whd_…).' }) id: string, @Ctx() context: SubgraphContext): Promise<WebhookDelivery> {
      const delivery = await service.retry(context.em, merchantOf(context), id);
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
