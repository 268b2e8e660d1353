import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { auditedBy } from '@gateway/audit';
import { pageInfoOf, type ServiceClient, type SubgraphContext } from '@gateway/federation';
import { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './webhook-endpoint.input';
import type { WebhookEndpointService } from './webhook-endpoint.service';
import {
  CreatedWebhookEndpoint,
  WebhookEndpoint,
  toWebhookReplay,
  WebhookEndpointConnection,
  WebhookReplay,
} from './webhook-endpoint.type';
import { webhookOwnerOf } from './webhook-owner';

/**
 * Webhook endpoints are their owner's own business: a merchant's API key manages the merchant's,
 * a TPP's tpk_ token the TPP's, each in its credential's world; an admin key the operator's and a
 * bank key its bank's (liquidity events), in both worlds. Anything else is
 * WEBHOOK_ENDPOINT_NOT_FOUND.
 */
export function createWebhookEndpointResolver(service: WebhookEndpointService, call: ServiceClient) {
  @Resolver(() => WebhookEndpoint)
  class WebhookEndpointResolver {
    @Query(() => WebhookEndpointConnection, {
      description:
        "The caller's webhook endpoints (a merchant's or TPP's in its credential's world, the primary one, its webhook_url, first; the operator's for an admin key, a bank's for its bank key, both worlds, each marked by livemode).",
    })
    async webhookEndpoints(
      @Arg('first', () => Int, { defaultValue: 20, description: 'Page size, 1 to 100.' }) first: number,
      @Arg('after', () => ID, { nullable: true, description: 'endCursor of the previous page.' }) after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookEndpointConnection> {
      const page = await service.list(context.em, await webhookOwnerOf(context, call), first, after);
      const edges = page.endpoints.map((endpoint) => ({ cursor: endpoint.id, node: endpoint }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Query(() => WebhookEndpoint, {
      description: "One of the caller's webhook endpoints; WEBHOOK_ENDPOINT_NOT_FOUND otherwise.",
    })
    async webhookEndpoint(
      @Arg('id', () => ID, { description: 'Endpoint id (we_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookEndpoint> {
      return service.find(context.em, await webhookOwnerOf(context, call), id);
    }

    @Mutation(() => CreatedWebhookEndpoint, {
      description:
        "Adds a webhook endpoint with its own generated secret (returned once) and event filter: a merchant's or TPP's in its credential's world, the operator's (admin key) or a bank's (bank key) in the world of input.mode (live by default).",
    })
    async createWebhookEndpoint(
      @Arg('input', { description: 'The endpoint to add.' }) input: CreateWebhookEndpointInput,
      @Ctx() context: SubgraphContext,
    ): Promise<CreatedWebhookEndpoint> {
      const owner = await webhookOwnerOf(context, call);
      const created = await service.create(context.em, owner, input, auditedBy(context));
      context.logger.info({ endpoint: created.endpoint.id }, 'webhook endpoint created');
      return created;
    }

    @Mutation(() => WebhookEndpoint, {
      description: "Changes one of the caller's webhook endpoints (not the primary one: that is the webhook_url).",
    })
    async updateWebhookEndpoint(
      @Arg('id', () => ID, { description: 'Endpoint id (we_…).' }) id: string,
      @Arg('input', { description: 'The fields to change; omitted ones stay.' }) input: UpdateWebhookEndpointInput,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookEndpoint> {
      return service.update(context.em, await webhookOwnerOf(context, call), id, input, auditedBy(context));
    }

    @Mutation(() => Boolean, {
      description:
        "Deletes one of the caller's webhook endpoints (not the primary one); its deliveries stay in the log.",
    })
    async deleteWebhookEndpoint(
      @Arg('id', () => ID, { description: 'Endpoint id (we_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<boolean> {
      await service.delete(context.em, await webhookOwnerOf(context, call), id, auditedBy(context));
      context.logger.info({ endpoint: id }, 'webhook endpoint deleted');
      return true;
    }

    @Mutation(() => WebhookReplay, {
      description:
        "Sends the caller's events of [from, to) (at most 7 days) to this endpoint again, each with its own event id, in order per session: only those whose delivery to it failed, " +
        'unless onlyFailed is false: then also those it never had, and those it got already only while the endpoint is new (added in the last 24 hours). ' +
        'A delivery still on its way (PENDING or HELD) is never queued twice. At most 1,000 events (more: VALIDATION_ERROR naming from; narrow the window); ' +
        "each event sent costs a point of the owner's replay budget (1,000, refilled at 300 a minute; RATE_LIMITED with Retry-After, nothing queued); " +
        'one replay of an endpoint at a time (WEBHOOK_REPLAY_IN_PROGRESS while the previous one still has events waiting for their attempt). ' +
        'The answer says what was left out, and why nothing was sent.',
    })
    async replayWebhookEndpoint(
      @Arg('id', () => ID, { description: 'Endpoint id (we_…).' }) id: string,
      @Arg('from', () => String, { description: 'Events created at or after (ISO 8601).' }) from: string,
      @Arg('to', () => String, { description: 'Events created before (ISO 8601).' }) to: string,
      @Arg('onlyFailed', () => Boolean, {
        defaultValue: true,
        description: 'Only events whose delivery to this endpoint FAILED (default), or every one.',
      })
      onlyFailed: boolean,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookReplay> {
      const owner = await webhookOwnerOf(context, call);
      const outcome = await service.replay(context.em, owner, id, { from, to, onlyFailed });
      context.logger.info({ endpoint: id, ...outcome }, 'webhook endpoint replay');
      return toWebhookReplay(outcome);
    }
  }
  return WebhookEndpointResolver;
}
