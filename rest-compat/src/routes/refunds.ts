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

// `refundId: id`: the REST record names the id refund_id, as the contract's response does.
const REFUND_RECORD = `fragment RefundRecord on Refund {
  refundId: id sessionId amount currency status reason reference failureCode createdAt completedAt livemode metadata { key value }
}`;

const flattenRefund = (refund: GraphQLData) => ({ ...refund, metadata: metadataObjectOf(refund.metadata) });

const sessionParams = z.object({ session_id: z.string().describe('ops_…') }).strict();

export const refundRecord = z
  .object({
    refund_id: z.string().describe('rfd_…'),
    session_id: z.string().describe('The session refunded (ops_…).'),
    amount: z.number().int().describe('Minor units.'),
    currency: z.string().describe("The session's currency."),
    status: z
      .enum(['PROCESSING', 'COMPLETED', 'FAILED'])
      .describe(
        "PROCESSING while the money moves (cross bank: until the payer's bank confirms), COMPLETED once the payer is credited, FAILED with failure_code.",
      ),
    reason: z.string().nullable(),
    reference: z.string().nullable().describe("The merchant's own reference, returned in the refund's events."),
    failure_code: z
      .string()
      .nullable()
      .describe(
        "Why it FAILED: INSUFFICIENT_FUNDS at the merchant's bank, a refusal of the payer's bank, CBS_ERROR, …",
      ),
    created_at: z.string(),
    completed_at: z.string().nullable().describe('ISO 8601 UTC; null until COMPLETED.'),
    livemode: z
      .boolean()
      .describe("false for a test object (a test credential's): its money moves only at test cores."),
    metadata: metadataObject,
  })
  .strict();

/** A page of refunds (a session's or the merchant's) as REST answers it. */
const refundPage = (connection: GraphQLData) => ({
  refunds: connection.edges.map((edge: GraphQLData) => flattenRefund(edge.node)),
  pagination: {
    nextCursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
    hasMore: connection.pageInfo.hasNextPage,
  },
});

const refundPageRecord = z
  .object({
    refunds: z.array(refundRecord),
    pagination: z
      .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
      .strict(),
  })
  .strict();

const REFUSALS = [
  'INVALID_API_KEY',
  'FORBIDDEN',
  'SESSION_NOT_FOUND',
  'REFUND_NOT_ALLOWED',
  'REFUND_AMOUNT_EXCEEDED',
  'BANK_NOT_PARTICIPATING',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
] as const;

export const refundRoutes = [
  defineRoute({
    method: 'POST',
    path: '/payments/sessions/{session_id}/refunds',
    tag: 'Refunds',
    summary: 'Refund a payment session',
    description:
      "Gives all or part of a COMPLETED session back to the payer: the payment engine moves the amount from the merchant's settlement_iban (the account the operator registered, " +
      "never one named per request) to the payer's account recorded at authorization; same bank internal, cross bank over the rail with the payer's bank's confirmation. " +
      'Partial refunds are allowed until the session amount is used up (refunds not FAILED count; concurrent refunds never exceed it, and the session record shows amount_refunded). ' +
      'Answers the refund as it stands after a short wait: COMPLETED, PROCESSING or FAILED; refund.completed or refund.failed follows by webhook. ' +
      "The merchant's bank refusing the debit (INSUFFICIENT_FUNDS) or the payer's bank the credit (the debit is given back) ends it FAILED, and its amount may be refunded again. " +
      '422 REFUND_NOT_ALLOWED for a session not COMPLETED, 422 REFUND_AMOUNT_EXCEEDED for more than what is left (nothing moves), 400 VALIDATION_ERROR when the merchant has no settlement_iban, ' +
      '422 BANK_NOT_PARTICIPATING while the merchant’s or the payer’s bank is suspended (nothing moves; refund again once it is resumed). ' +
      'Idempotency-Key: the same request within 24 hours answers the same refund.',
    auth: [['merchantKey']],
    idempotent: true,
    params: sessionParams,
    body: z
      .object({
        amount: z
          .number()
          .int()
          .nullish()
          .describe('Positive integer of minor units, at most what is left to refund; absent: all that is left.'),
        reason: z.string().nullish().describe('1-500 characters: why the money is given back.'),
        reference: z
          .string()
          .nullish()
          .describe("1-128 characters: the merchant's own reference, returned in refund.completed / refund.failed."),
        metadata: metadataObject
          .nullish()
          .describe(
            "The merchant's own key-value pairs (up to 20 keys of 1-40 characters, values up to 500), returned in the refund and its webhooks.",
          ),
      })
      .strict(),
    operation: `mutation RefundPaymentSession($id: ID!, $input: RefundPaymentSessionInput, $idempotencyKey: String) {
  refundPaymentSession(id: $id, input: $input, idempotencyKey: $idempotencyKey) { ...RefundRecord }
}
${REFUND_RECORD}`,
    variables: ({ params, body, headers }) => ({
      id: params.sessionId,
      input: { ...body, metadata: metadataEntries(body?.metadata) },
      idempotencyKey: headers.idempotencyKey ?? null,
    }),
    result: ({ refundPaymentSession }) => flattenRefund(refundPaymentSession),
    status: 201,
    response: refundRecord,
    errors: [...REFUSALS],
  }),
  defineRoute({
    method: 'GET',
    path: '/payments/sessions/{session_id}/refunds',
    tag: 'Refunds',
    summary: "List a session's refunds",
    description:
      "Newest first. Pass pagination.next_cursor as cursor for the next page. Another merchant's session is 404 SESSION_NOT_FOUND, like an unknown one. " +
      'Filters combine (all must hold); a bad value is 400 VALIDATION_ERROR naming the parameter.',
    auth: [['merchantKey'], ['adminKey']],
    params: sessionParams,
    query: listQuery('PROCESSING, COMPLETED or FAILED', {
      reference: filterQuery.reference,
      metadata: filterQuery.metadata,
    }),
    operation: `query ListRefunds($id: ID!, $first: Int, $after: String, $filter: RefundFilter) {
  paymentSession(id: $id) { refunds(first: $first, after: $after, filter: $filter) { edges { node { ...RefundRecord } } pageInfo { hasNextPage endCursor } } }
}
${REFUND_RECORD}`,
    variables: ({ params, query }) => ({
      id: params.sessionId,
      first: query.limit ?? null,
      after: query.cursor ?? null,
      filter: filterOf(query),
    }),
    result: ({ paymentSession }) => refundPage(paymentSession.refunds),
    status: 200,
    response: refundPageRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'SESSION_NOT_FOUND'],
  }),
  defineRoute({
    method: 'GET',
    path: '/refunds',
    tag: 'Refunds',
    summary: 'List refunds',
    description:
      "The merchant's refunds across all its sessions, newest first; a test key lists test refunds, a live key live ones. " +
      'Pass pagination.next_cursor as cursor for the next page. Filters combine (all must hold); a bad value is 400 VALIDATION_ERROR naming the parameter ' +
      '(cursor, when it is not the last id of a page of this same filtered list).',
    auth: [['merchantKey']],
    query: listQuery('PROCESSING, COMPLETED or FAILED', {
      reference: filterQuery.reference,
      metadata: filterQuery.metadata,
    }),
    operation: `query ListMerchantRefunds($first: Int, $after: String, $filter: RefundFilter) {
  refunds(first: $first, after: $after, filter: $filter) { edges { node { ...RefundRecord } } pageInfo { hasNextPage endCursor } }
}
${REFUND_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? null, after: query.cursor ?? null, filter: filterOf(query) }),
    result: ({ refunds }) => refundPage(refunds),
    status: 200,
    response: refundPageRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/refunds/{refund_id}',
    tag: 'Refunds',
    summary: 'Read a refund',
    description: "The merchant's own refunds only: another merchant's is 404 REFUND_NOT_FOUND, like an unknown one.",
    auth: [['merchantKey'], ['adminKey']],
    params: z.object({ refund_id: z.string().describe('rfd_…') }).strict(),
    operation: `query GetRefund($id: ID!) { refund(id: $id) { ...RefundRecord } }
${REFUND_RECORD}`,
    variables: ({ params }) => ({ id: params.refundId }),
    result: ({ refund }) => flattenRefund(refund),
    status: 200,
    response: refundRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'REFUND_NOT_FOUND'],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/refunds/{refund_id}',
    tag: 'Refunds',
    summary: "Update a refund's metadata",
    description:
      'Merges metadata into the refund, whatever its status: keys sent are set, a key sent as "" is removed, keys not sent stay. ' +
      'Past 20 keys in all, a key over 40 characters or a value over 500: 400 VALIDATION_ERROR and nothing changes.',
    auth: [['merchantKey']],
    params: z.object({ refund_id: z.string().describe('rfd_…') }).strict(),
    body: metadataPatchBody,
    operation: `mutation UpdateRefundMetadata($id: ID!, $metadata: [MetadataEntryInput!]!) { updateRefundMetadata(id: $id, metadata: $metadata) { ...RefundRecord } }
${REFUND_RECORD}`,
    variables: ({ params, body }) => ({ id: params.refundId, metadata: metadataEntries(body.metadata) }),
    result: ({ updateRefundMetadata }) => flattenRefund(updateRefundMetadata),
    status: 200,
    response: refundRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'REFUND_NOT_FOUND'],
  }),
];
