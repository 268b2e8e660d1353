import { z } from 'zod';
import { defineRoute, type Credential, type GraphQLData } from '../route';

// `endpointId: id`: REST names the endpoint's id endpoint_id, as the contract does.
const ENDPOINT_RECORD = `fragment EndpointRecord on WebhookEndpoint { endpointId: id url enabledEvents description status livemode createdAt primary }`;

const endpointRecord = z
  .object({
    endpoint_id: z.string().describe('we_…; the primary endpoint (the webhook_url) is we_ followed by the owner id.'),
    url: z.string(),
    enabled_events: z.array(z.string()).describe('Event kinds it gets, or ["*"] for all.'),
    description: z.string().nullable(),
    status: z.enum(['ENABLED', 'DISABLED']).describe('A DISABLED endpoint gets no deliveries.'),
    livemode: z
      .boolean()
      .describe(
        "Its world: it gets only that world's events (a merchant's or TPP's credential's world; for the operator and banks, the mode it was created with).",
      ),
    created_at: z.string().describe('ISO 8601 UTC.'),
    primary: z
      .boolean()
      .describe("The owner's webhook_url acting as its first endpoint (all events, the owner's secret)."),
  })
  .strict();

const endpointParams = z.object({ id: z.string().describe('Endpoint id (we_…).') }).strict();
/**
 * Every owner of webhook endpoints (issue 48: the operator and banks too, for the liquidity events
 * of net debit caps), each with its own credential; each sees and changes only its own.
 */
export const WEBHOOK_OWNER_AUTH: Credential[][] = [['merchantKey'], ['tppToken'], ['adminKey'], ['bankKey']];
const AUTH = WEBHOOK_OWNER_AUTH;
const ERRORS = ['INVALID_API_KEY', 'INVALID_BANK_KEY', 'FORBIDDEN', 'WEBHOOK_ENDPOINT_NOT_FOUND'] as const;
/** Whose endpoints a route reaches, and in which world, for its description. */
export const WEBHOOK_OWNERS =
  "The caller's own: a merchant's (API key) or TPP's (tpk_ token), in the credential's world; the operator's (admin key, X-Service-Admin-Key) or a bank's (its bank key, X-Service-Bank-Key), " +
  'whose credentials have no world: they see their endpoints of both worlds, each marked by livemode.';
const enabledEvents = z
  .array(z.string())
  .describe(
    'Event names of the owner\'s (merchants: payment.*, refund.*, mandate.* events; TPPs: consent.* and payment_order.* events; the operator and banks: liquidity.threshold_reached and liquidity.cap_reached), or ["*"] for all of them. An unknown name, or another owner\'s, is 400 VALIDATION_ERROR naming enabled_events.',
  );

export const webhookEndpointRoutes = [
  defineRoute({
    method: 'POST',
    path: '/webhooks/endpoints',
    tag: 'Webhooks',
    summary: 'Add a webhook endpoint',
    description:
      "A merchant's (API key) or TPP's (tpk_ token) further endpoint, in the credential's world, with its own signing secret (returned once: X-Service-Signature and Standard Webhooks) and event filter. " +
      "The operator (admin key) and a bank (its bank key) add endpoints for the liquidity events of net debit caps (liquidity.threshold_reached, liquidity.cap_reached; a bank's are about itself only): they have no webhook_url, endpoints only, each in the world of `mode` (live by default; a test endpoint gets the test world's events only). " +
      'A suspended bank keeps getting its liquidity events, but its key (403 BANK_SUSPENDED) cannot manage its endpoints meanwhile. ' +
      'Each endpoint has its own delivery order and retries: a dead endpoint holds back only its own deliveries. The URL is checked as a webhook_url is (http(s); https in production; loopback and private networks refused unless PRIVATE_TARGETS). ' +
      'At most 16 per owner and world (422 WEBHOOK_ENDPOINT_LIMIT_REACHED).',
    auth: AUTH,
    body: z
      .object({
        url: z.string(),
        enabled_events: enabledEvents.optional().describe('Default ["*"].'),
        description: z.string().nullish().describe('Up to 500 characters.'),
        mode: z
          .enum(['live', 'test'])
          .optional()
          .describe(
            "The operator's and banks' endpoints: live (default) or test, the world whose events it gets. A merchant's or TPP's endpoint is in its credential's world (another mode is 400 naming mode).",
          ),
      })
      .strict(),
    operation: `mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { ...EndpointRecord } secret } }
${ENDPOINT_RECORD}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ createWebhookEndpoint }) => ({
      ...createWebhookEndpoint.endpoint,
      secret: createWebhookEndpoint.secret,
    }),
    status: 201,
    response: endpointRecord.extend({ secret: z.string().describe('whsec_…, shown this once.') }).strict(),
    errors: ['INVALID_API_KEY', 'INVALID_BANK_KEY', 'FORBIDDEN', 'VALIDATION_ERROR', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/endpoints',
    tag: 'Webhooks',
    summary: "List the caller's webhook endpoints",
    description: `${WEBHOOK_OWNERS} The primary endpoint (a merchant's or TPP's webhook_url, when set) first, then the others oldest first.`,
    auth: AUTH,
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
        cursor: z.string().optional().describe('next_cursor of the previous page (an endpoint id).'),
      })
      .strict(),
    operation: `query ListWebhookEndpoints($first: Int!, $after: ID) {
  webhookEndpoints(first: $first, after: $after) { edges { node { ...EndpointRecord } } pageInfo { hasNextPage endCursor } }
}
${ENDPOINT_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? 20, after: query.cursor ?? null }),
    result: ({ webhookEndpoints }) => ({
      endpoints: webhookEndpoints.edges.map((edge: GraphQLData) => edge.node),
      pagination: {
        nextCursor: webhookEndpoints.pageInfo.hasNextPage ? webhookEndpoints.pageInfo.endCursor : null,
        hasMore: webhookEndpoints.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        endpoints: z.array(endpointRecord),
        pagination: z
          .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
          .strict(),
      })
      .strict(),
    errors: ['INVALID_API_KEY', 'INVALID_BANK_KEY', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/endpoints/{id}',
    tag: 'Webhooks',
    summary: 'Get a webhook endpoint',
    description:
      "Only the caller's own (a merchant's or TPP's in its credential's world; the operator's or a bank's of either world); any other id, another bank's or the operator's included, is 404 WEBHOOK_ENDPOINT_NOT_FOUND.",
    auth: AUTH,
    params: endpointParams,
    operation: `query GetWebhookEndpoint($id: ID!) { webhookEndpoint(id: $id) { ...EndpointRecord } }
${ENDPOINT_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ webhookEndpoint }) => webhookEndpoint,
    status: 200,
    response: endpointRecord,
    errors: [...ERRORS],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/webhooks/endpoints/{id}',
    tag: 'Webhooks',
    summary: 'Change a webhook endpoint',
    description:
      'Omitted fields stay; status enabled or disabled (a disabled endpoint gets no deliveries; its pending ones fail). The primary endpoint changes with the webhook_url only (400 VALIDATION_ERROR on id).',
    auth: AUTH,
    params: endpointParams,
    body: z
      .object({
        url: z.string().optional(),
        enabled_events: enabledEvents.optional(),
        description: z.string().nullish().describe('null or "" removes it.'),
        status: z.string().optional().describe('enabled or disabled (either case).'),
      })
      .strict(),
    operation: `mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ...EndpointRecord } }
${ENDPOINT_RECORD}`,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
    result: ({ updateWebhookEndpoint }) => updateWebhookEndpoint,
    status: 200,
    response: endpointRecord,
    errors: [...ERRORS],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/webhooks/endpoints/{id}',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    description:
      'Its deliveries stay in the log. The primary endpoint goes away with the webhook_url only (400 VALIDATION_ERROR on id).',
    auth: AUTH,
    params: endpointParams,
    operation: `mutation DeleteWebhookEndpoint($id: ID!) { deleteWebhookEndpoint(id: $id) }`,
    variables: ({ params }) => ({ id: params.id }),
    status: 204,
    errors: [...ERRORS],
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/endpoints/{id}/replay',
    tag: 'Webhooks',
    summary: "Send a time range's events to an endpoint again",
    description:
      "The caller's events created in [from, to) that the endpoint takes are sent to it again, each with its own event id (receivers deduplicate), in order per session, signed with its current secret. " +
      'Within bounds: a window of at most 7 days (400 VALIDATION_ERROR naming to) and 1,000 events to send (400 naming from: narrow the window). ' +
      'By default only the deliveries to it that FAILED; with only_failed false also the events it never had, and the ones it got already only while the endpoint is new (added in the last 24 hours). ' +
      'A delivery still on its way (PENDING, or HELD while the owner is suspended) is never queued twice. ' +
      "Each event sent costs one point of the owner's replay budget (1,000 points refilled at 300 a minute, the write limit's rate): a replay asking more than is left is 429 RATE_LIMITED with Retry-After and queues nothing. " +
      'One replay of an endpoint at a time: 409 WEBHOOK_REPLAY_IN_PROGRESS while events of the previous one still wait for their attempt. ' +
      'The answer counts what was left out, and says why when nothing was sent (reason); a disabled endpoint gets none.',
    auth: AUTH,
    params: endpointParams,
    body: z
      .object({
        from: z.string().describe('ISO 8601, inclusive.'),
        to: z.string().describe('ISO 8601, exclusive; at most 7 days after from.'),
        only_failed: z.boolean().optional().describe('Default true.'),
      })
      .strict(),
    operation: `mutation ReplayWebhookEndpoint($id: ID!, $from: String!, $to: String!, $onlyFailed: Boolean!) {
  replayWebhookEndpoint(id: $id, from: $from, to: $to, onlyFailed: $onlyFailed) { replayed events skippedDelivered skippedPending reason }
}`,
    variables: ({ params, body }) => ({
      id: params.id,
      from: body.from,
      to: body.to,
      onlyFailed: body.onlyFailed ?? true,
    }),
    result: ({ replayWebhookEndpoint }) => replayWebhookEndpoint,
    status: 202,
    response: z
      .object({
        replayed: z.number().int().describe('How many events are sent again.'),
        events: z.number().int().describe('Events of the window this endpoint takes (its world and event filter).'),
        skipped_delivered: z
          .number()
          .int()
          .describe('Delivered to it already, not sent again (only a new endpoint asking for all events gets them).'),
        skipped_pending: z.number().int().describe('Still on their way to it (PENDING or HELD), not queued twice.'),
        reason: z
          .enum(['ENDPOINT_DISABLED', 'NO_EVENTS', 'NOTHING_FAILED', 'ALREADY_SENT'])
          .nullable()
          .describe(
            'Why nothing was sent (null when some were): the endpoint is disabled; no event of the window is one it takes; none of them failed (only_failed); all were delivered or are on their way.',
          ),
      })
      .strict(),
    errors: [...ERRORS, 'VALIDATION_ERROR', 'WEBHOOK_REPLAY_IN_PROGRESS', 'RATE_LIMITED'],
  }),
];
