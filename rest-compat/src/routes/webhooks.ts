import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';
import { filterOf, filterQuery, listQuery } from './list-filters';
import { WEBHOOK_OWNER_AUTH } from './webhook-endpoints';

// `deliveryId: id`: REST names the delivery's id delivery_id, as the contract's list does.
export const DELIVERY_RECORD = `fragment DeliveryRecord on WebhookDelivery { deliveryId: id eventId endpointId livemode event url status attempts lastStatusCode lastError nextAttemptAt }`;

export const deliveryRecord = z
  .object({
    delivery_id: z.string().describe('whd_…'),
    event_id: z.string().describe('evt_…: X-Service-Event-Id and webhook-id of every attempt.'),
    endpoint_id: z.string().describe('we_…: the webhook endpoint it goes to (we_<owner id> for the webhook_url).'),
    livemode: z.boolean().describe("The event's world: false for a test object's event."),
    event: z.string().describe('Event kind, e.g. payment.completed or consent.granted.'),
    url: z.string().nullable().describe('Where the last attempt went; null before the first.'),
    status: z
      .enum(['PENDING', 'HELD', 'DELIVERED', 'FAILED'])
      .describe(
        'PENDING: more attempts to come; HELD: its owner is suspended by the operator, so it waits (not sent, not retried, no attempt counted) and goes out once, in order, on resume; DELIVERED: a 2xx answer; FAILED: retries spent.',
      ),
    attempts: z.number().int(),
    last_status_code: z
      .number()
      .int()
      .nullable()
      .describe('HTTP status of the last attempt; null when it got no answer (timeout, refused).'),
    last_error: z
      .string()
      .nullable()
      .describe(
        "Why the last attempt got no answer: a timeout, a failed connection, or 'target refused: not a public address' when the URL's host is not a public address " +
          '(nothing is sent there; PRIVATE_TARGETS allows loopback and private networks). Null after an answer.',
      ),
    next_attempt_at: z.string().nullable().describe('ISO 8601 UTC; null while HELD and once DELIVERED or FAILED.'),
  })
  .strict();

export const webhookRoutes = [
  defineRoute({
    method: 'GET',
    path: '/webhooks/deliveries',
    tag: 'Webhooks',
    summary: "List the caller's webhook deliveries",
    description:
      "A merchant's (API key) or, for Open Banking events (consent.*, payment_order.*), a TPP's (tpk_ token); for liquidity events the operator's (admin key) or a bank's (its bank key): each caller sees only its own. " +
      'Newest first, one per event; filter by status, created range (created_from inclusive, created_to exclusive) and event kind. A delivery is retried with exponential backoff (first retry within 10 seconds, about 52 hours in all) until a 2xx answer within 10 seconds, then FAILED. ' +
      'Every delivery carries X-Service-Signature, X-Service-Event-Id, X-Service-Timestamp and the Standard Webhooks headers webhook-id, webhook-timestamp, webhook-signature.',
    auth: WEBHOOK_OWNER_AUTH,
    query: listQuery('PENDING, HELD, DELIVERED or FAILED', { event: filterQuery.event }),
    operation: `query ListWebhookDeliveries($first: Int!, $after: ID, $filter: WebhookDeliveryFilter) {
  webhookDeliveries(first: $first, after: $after, filter: $filter) { edges { node { ...DeliveryRecord } } pageInfo { hasNextPage endCursor } }
}
${DELIVERY_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? 20, after: query.cursor ?? null, filter: filterOf(query) }),
    result: ({ webhookDeliveries }) => ({
      deliveries: webhookDeliveries.edges.map((edge: GraphQLData) => edge.node),
      pagination: {
        nextCursor: webhookDeliveries.pageInfo.hasNextPage ? webhookDeliveries.pageInfo.endCursor : null,
        hasMore: webhookDeliveries.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        deliveries: z.array(deliveryRecord),
        pagination: z
          .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
          .strict(),
      })
      .strict(),
    errors: ['INVALID_API_KEY', 'INVALID_BANK_KEY', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/deliveries/{id}/retry',
    tag: 'Webhooks',
    summary: 'Send a webhook delivery again',
    description:
      'Any status: a FAILED delivery gets one more attempt, a DELIVERED one is sent again (same event id, so receivers can deduplicate). Signed with the current webhook secret. ' +
      "Only the caller's own deliveries (merchant key, TPP token, admin key for the operator's, bank key for the bank's); any other id is 404 WEBHOOK_DELIVERY_NOT_FOUND.",
    auth: WEBHOOK_OWNER_AUTH,
    params: z.object({ id: z.string().describe('Delivery id (whd_…).') }).strict(),
    operation: `mutation RetryWebhookDelivery($id: ID!) { retryWebhookDelivery(id: $id) { ...DeliveryRecord } }
${DELIVERY_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ retryWebhookDelivery }) => retryWebhookDelivery,
    status: 202,
    response: deliveryRecord,
    errors: ['INVALID_API_KEY', 'INVALID_BANK_KEY', 'FORBIDDEN', 'WEBHOOK_DELIVERY_NOT_FOUND'],
  }),
];
