import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';
import { WEBHOOK_OWNER_AUTH } from './webhook-endpoints';
import { DELIVERY_RECORD, deliveryRecord } from './webhooks';

const EVENT_RECORD = `fragment EventRecord on Event { id event: type createdAt livemode sequence data }`;

const eventRecord = z
  .object({
    id: z.string().describe('evt_…'),
    event: z.string().describe('Event kind, e.g. payment.completed.'),
    created_at: z.string().describe('ISO 8601 UTC.'),
    livemode: z.boolean(),
    sequence: z
      .number()
      .int()
      .nullable()
      .describe("Its place among its session's (mandate's, consent's) events, from 1."),
    data: z.record(z.string(), z.unknown()).describe("The envelope's data, as sent in its webhooks."),
  })
  .strict();

/** GraphQL hands data over as JSON text; REST answers the envelope's object. */
const withData = (event: GraphQLData) => ({ ...event, data: JSON.parse(event.data as string) as unknown });

export const eventRoutes = [
  defineRoute({
    method: 'GET',
    path: '/events',
    tag: 'Webhooks',
    summary: "List the caller's events",
    description:
      "A merchant's (API key) or TPP's (tpk_ token) webhook events of the last 30 days, newest first, in the credential's world: every event, whether or not an endpoint got it (a CLI can poll this to forward test events). " +
      "The operator's (admin key) and a bank's (its bank key: about itself only) are the liquidity events of net debit caps, of both worlds (each marked by livemode). " +
      'Each is the webhook envelope {id, event, created_at, livemode, sequence, data}.',
    auth: WEBHOOK_OWNER_AUTH,
    query: z
      .object({
        type: z.string().optional().describe('Only this event kind, e.g. payment.completed.'),
        from: z.string().optional().describe('Created at or after (ISO 8601).'),
        to: z.string().optional().describe('Created before (ISO 8601).'),
        limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
        cursor: z.string().optional().describe('next_cursor of the previous page (an event id).'),
      })
      .strict(),
    operation: `query ListEvents($type: String, $from: String, $to: String, $first: Int!, $after: ID) {
  events(type: $type, from: $from, to: $to, first: $first, after: $after) { edges { node { ...EventRecord } } pageInfo { hasNextPage endCursor } }
}
${EVENT_RECORD}`,
    variables: ({ query }) => ({
      type: query.type ?? null,
      from: query.from ?? null,
      to: query.to ?? null,
      first: query.limit ?? 20,
      after: query.cursor ?? null,
    }),
    result: ({ events }) => ({
      events: events.edges.map((edge: GraphQLData) => withData(edge.node)),
      pagination: {
        nextCursor: events.pageInfo.hasNextPage ? events.pageInfo.endCursor : null,
        hasMore: events.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        events: z.array(eventRecord),
        pagination: z
          .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
          .strict(),
      })
      .strict(),
    errors: ['INVALID_API_KEY', 'INVALID_BANK_KEY', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/events/{id}',
    tag: 'Webhooks',
    summary: 'Get an event with its deliveries',
    description:
      "One of the caller's events with its deliveries, one per endpoint that got it; any other id (another's, the other world's for a merchant or TPP, older than 30 days) is 404 EVENT_NOT_FOUND.",
    auth: WEBHOOK_OWNER_AUTH,
    params: z.object({ id: z.string().describe('Event id (evt_…).') }).strict(),
    operation: `query GetEvent($id: ID!) { event(id: $id) { ...EventRecord deliveries { ...DeliveryRecord } } }
${EVENT_RECORD}
${DELIVERY_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ event }) => withData(event),
    status: 200,
    response: eventRecord.extend({ deliveries: z.array(deliveryRecord) }).strict(),
    errors: ['INVALID_API_KEY', 'INVALID_BANK_KEY', 'FORBIDDEN', 'EVENT_NOT_FOUND'],
  }),
];
