import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';
import {
  filterOf,
  filterQuery,
  listQuery,
  metadataEntries,
  metadataObject,
  metadataObjectOf,
  metadataPatchBody,
} from './list-filters';

// `sessionId: id`: the REST record names the id session_id, as the spec's response does.
const SESSION_RECORD = `fragment SessionRecord on PaymentSession {
  sessionId: id livemode merchantId status amount currency amountRefunded destination { type value } creditorIban creditorBank { handle } debtorBank { handle }
  settlementType description reference redirectUrl webhookUrl checkoutUrl expiresAt failureCode createdAt updatedAt completedAt failedAt expiredAt
  metadata { key value }
}`;

const nullableTime = z.string().nullable().describe('ISO 8601 UTC; null until reached.');

export const sessionRecord = z
  .object({
    session_id: z.string().describe('ops_…'),
    livemode: z
      .boolean()
      .describe("false for a test object (a test credential's): its money moves only at test cores."),
    merchant_id: z.string(),
    status: z.enum(['PENDING', 'PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED', 'EXPIRED']),
    amount: z.number().int().describe('Minor units.'),
    currency: z.string(),
    amount_refunded: z
      .number()
      .int()
      .describe(
        'Minor units given back by refunds not FAILED (POST /payments/sessions/{session_id}/refunds); at most amount.',
      ),
    destination: z.object({ type: z.string().describe('alias or iban.'), value: z.string() }).strict(),
    creditor_iban: z.string().describe('IBAN the destination resolved to at creation.'),
    creditor_bank: z.string().describe("Handle of the payee's bank."),
    debtor_bank: z.string().nullable().describe("Handle of the payer's bank, once the payer has authenticated."),
    settlement_type: z.string().nullable().describe('internal (same bank) or rail (cross bank).'),
    description: z.string().nullable(),
    reference: z.string().nullable(),
    redirect_url: z.string().nullable(),
    webhook_url: z.string().nullable(),
    checkout_url: z.string().describe('Send the payer here.'),
    expires_at: z.string().describe('ISO 8601 UTC.'),
    failure_code: z.string().nullable().describe('Why the session FAILED.'),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: nullableTime,
    failed_at: nullableTime,
    expired_at: nullableTime,
    metadata: metadataObject,
  })
  .strict();

/** Bank stubs become their handles on REST. */
const flattenSession = (session: GraphQLData) => ({
  ...session,
  creditorBank: session.creditorBank.handle,
  debtorBank: session.debtorBank?.handle ?? null,
  metadata: metadataObjectOf(session.metadata),
});

export const paymentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/payments/sessions',
    tag: 'Payments',
    summary: 'Create a payment session',
    description:
      "From the merchant's backend only. The destination (alias, handle@bank_handle or IBAN) is resolved now, and the amount checked against its bank's limits. " +
      "A currency other than the one the destination account is held in is 422 CURRENCY_MISMATCH (when the payee's core answers in time; else at authorization). " +
      'Send the payer to checkout_url; the session expires at expires_at (TTL 15 minutes by default). 100 requests per minute per merchant.',
    auth: [['merchantKey']],
    idempotent: true,
    body: z
      .object({
        amount: z.number().int().describe('Positive integer of minor units.'),
        currency: z.string().describe('LYD, USD or EUR.'),
        destination: z
          .object({
            type: z.string().describe('alias or iban.'),
            value: z.string().describe('handle, handle@bank_handle, or IBAN.'),
          })
          .strict(),
        description: z.string().nullish().describe('1-500 characters, shown at checkout.'),
        reference: z
          .string()
          .nullish()
          .describe("1-128 characters: the merchant's own reference, returned in payment.completed."),
        redirect_url: z
          .string()
          .nullish()
          .describe('Where the payer returns, with query session_id and status; https in production.'),
        webhook_url: z
          .string()
          .nullish()
          .describe("This session's webhook URL instead of the merchant's; https to a public host in production."),
        metadata: metadataObject
          .nullish()
          .describe(
            "The merchant's own key-value pairs (up to 20 keys of 1-40 characters, values up to 500), returned in the session record and its webhooks, never shown to the payer.",
          ),
      })
      .strict(),
    operation: `mutation CreatePaymentSession($input: CreatePaymentSessionInput!, $idempotencyKey: String) {
  createPaymentSession(input: $input, idempotencyKey: $idempotencyKey) { ...SessionRecord }
}
${SESSION_RECORD}`,
    variables: ({ body, headers }) => ({
      input: { ...body, metadata: metadataEntries(body.metadata) },
      idempotencyKey: headers.idempotencyKey ?? null,
    }),
    result: ({ createPaymentSession }) => flattenSession(createPaymentSession),
    status: 201,
    response: sessionRecord,
    errors: [
      'INVALID_API_KEY',
      'FORBIDDEN',
      'ALIAS_NOT_FOUND',
      'ALIAS_INACTIVE',
      'BANK_NOT_PARTICIPATING',
      'AMOUNT_TOO_LOW',
      'AMOUNT_TOO_HIGH',
      'CURRENCY_MISMATCH',
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_KEY_IN_USE',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/payments/sessions/{session_id}',
    tag: 'Payments',
    summary: 'Read a payment session',
    description:
      "The merchant's own sessions only: another merchant's session is 404 SESSION_NOT_FOUND, like an unknown one.",
    auth: [['merchantKey'], ['adminKey']],
    params: z.object({ session_id: z.string().describe('ops_…') }).strict(),
    operation: `query GetPaymentSession($id: ID!) { paymentSession(id: $id) { ...SessionRecord } }
${SESSION_RECORD}`,
    variables: ({ params }) => ({ id: params.sessionId }),
    result: ({ paymentSession }) => flattenSession(paymentSession),
    status: 200,
    response: sessionRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'SESSION_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/payments/sessions/{session_id}/expire',
    tag: 'Payments',
    summary: 'End a pending payment session',
    description:
      'The merchant no longer wants the session paid (an order cancelled before checkout): a PENDING session becomes EXPIRED at once and payment.expired is sent; ' +
      'the checkout page shows it ended. An authorization racing the call either wins (the session is paid, this answers 409 SESSION_NOT_PENDING) or is refused: never both.',
    auth: [['merchantKey']],
    params: z.object({ session_id: z.string().describe('ops_…') }).strict(),
    operation: `mutation ExpirePaymentSession($id: ID!) { expirePaymentSession(id: $id) { ...SessionRecord } }
${SESSION_RECORD}`,
    variables: ({ params }) => ({ id: params.sessionId }),
    result: ({ expirePaymentSession }) => flattenSession(expirePaymentSession),
    status: 200,
    response: sessionRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'SESSION_NOT_FOUND', 'SESSION_NOT_PENDING'],
  }),
  defineRoute({
    method: 'GET',
    path: '/payments/sessions',
    tag: 'Payments',
    summary: "List the merchant's payment sessions",
    description:
      'Newest first. Pass pagination.next_cursor as cursor for the next page: pages never overlap or skip, whatever is created meanwhile (new sessions appear before the first page). ' +
      'Filters combine (all must hold); a bad value is 400 VALIDATION_ERROR naming the parameter, and a cursor must come from the same filtered list.',
    auth: [['merchantKey']],
    query: listQuery('PENDING, PROCESSING, SETTLEMENT_PENDING, COMPLETED, FAILED or EXPIRED', {
      reference: filterQuery.reference,
      amount_min: filterQuery.amount_min,
      amount_max: filterQuery.amount_max,
      metadata: filterQuery.metadata,
    }),
    operation: `query ListPaymentSessions($first: Int, $after: String, $filter: PaymentSessionFilter) {
  paymentSessions(first: $first, after: $after, filter: $filter) { edges { node { ...SessionRecord } } pageInfo { hasNextPage endCursor } }
}
${SESSION_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? null, after: query.cursor ?? null, filter: filterOf(query) }),
    result: ({ paymentSessions }) => ({
      sessions: paymentSessions.edges.map((edge: GraphQLData) => flattenSession(edge.node)),
      pagination: {
        nextCursor: paymentSessions.pageInfo.hasNextPage ? paymentSessions.pageInfo.endCursor : null,
        hasMore: paymentSessions.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        sessions: z.array(sessionRecord),
        pagination: z
          .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
          .strict(),
      })
      .strict(),
    errors: ['INVALID_API_KEY', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/payments/sessions/{session_id}',
    tag: 'Payments',
    summary: "Update a payment session's metadata",
    description:
      'Merges metadata into the session, whatever its status: keys sent are set, a key sent as "" is removed, keys not sent stay (Stripe\'s rule). ' +
      'Past 20 keys in all, a key over 40 characters or a value over 500: 400 VALIDATION_ERROR and nothing changes. Later webhooks of the session carry the new metadata.',
    auth: [['merchantKey']],
    params: z.object({ session_id: z.string().describe('ops_…') }).strict(),
    body: metadataPatchBody,
    operation: `mutation UpdatePaymentSessionMetadata($id: ID!, $metadata: [MetadataEntryInput!]!) {
  updatePaymentSessionMetadata(id: $id, metadata: $metadata) { ...SessionRecord }
}
${SESSION_RECORD}`,
    variables: ({ params, body }) => ({ id: params.sessionId, metadata: metadataEntries(body.metadata) }),
    result: ({ updatePaymentSessionMetadata }) => flattenSession(updatePaymentSessionMetadata),
    status: 200,
    response: sessionRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'SESSION_NOT_FOUND'],
  }),
];
