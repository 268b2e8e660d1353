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
  refundId: id sessionId chargeId mandateId amount currency status reason reference failureCode createdAt completedAt livemode metadata { key value }
}`;

/** A session's refund has no charge_id or mandate_id (its record is as it always was); a charge's has both, and session_id null. */
const flattenRefund = ({ chargeId, mandateId, ...refund }: GraphQLData) => ({
  ...refund,
  ...(chargeId ? { chargeId, mandateId } : {}),
  metadata: metadataObjectOf(refund.metadata),
});

const sessionParams = z.object({ session_id: z.string().describe('ops_…') }).strict();

export const refundRecord = z
  .object({
    refund_id: z.string().describe('rfd_…'),
    session_id: z.string().nullable().describe("The session refunded (ops_…); null for a mandate charge's refund."),
    charge_id: z
      .string()
      .optional()
      .describe("The mandate charge refunded (chg_…): only on a charge's refund (session_id is then null)."),
    mandate_id: z.string().optional().describe("The refunded charge's mandate (mdt_…): only on a charge's refund."),
    amount: z.number().int().describe('Minor units.'),
    currency: z.string().describe("The session's or charge's currency."),
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

const chargeParams = z
  .object({ mandate_id: z.string().describe('mdt_…'), charge_id: z.string().describe('chg_…') })
  .strict();

const refundBody = z
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
  .strict();

const CHARGE_REFUSALS = [
  'INVALID_API_KEY',
  'FORBIDDEN',
  'MANDATE_CHARGE_NOT_FOUND',
  'REFUND_NOT_ALLOWED',
  'REFUND_AMOUNT_EXCEEDED',
  'BANK_NOT_PARTICIPATING',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
] as const;

/** Refunds of mandate charges: the same records and rules as a session's, at the charge's path. */
const chargeRefundRoutes = [
  defineRoute({
    method: 'POST',
    path: '/recurring/mandates/{mandate_id}/charges/{charge_id}/refunds',
    tag: 'Refunds',
    summary: 'Refund a mandate charge',
    description:
      "Gives all or part of a COMPLETED mandate charge back to the customer: the payment engine moves the amount from the merchant's settlement_iban " +
      "to the customer's account the charge debited; same bank internal, cross bank over the rail with the customer's bank's confirmation. " +
      'Partial refunds are allowed until the charge amount is used up (refunds not FAILED count; concurrent refunds never exceed it, and the charge record shows amount_refunded). ' +
      'Answers the refund (charge_id and mandate_id, session_id null) as it stands after a short wait: COMPLETED, PROCESSING or FAILED; refund.completed or refund.failed follows by webhook, with charge_id. ' +
      "404 MANDATE_CHARGE_NOT_FOUND for another merchant's charge or another mandate's, 422 REFUND_NOT_ALLOWED for a charge not COMPLETED, 422 REFUND_AMOUNT_EXCEEDED for more than what is left (nothing moves), " +
      '400 VALIDATION_ERROR when the merchant has no settlement_iban, 422 BANK_NOT_PARTICIPATING while the merchant’s or the customer’s bank is suspended. ' +
      'Idempotency-Key: the same request within 24 hours answers the same refund.',
    auth: [['merchantKey']],
    idempotent: true,
    params: chargeParams,
    body: refundBody,
    operation: `mutation RefundMandateCharge($mandateId: ID!, $chargeId: ID!, $input: RefundMandateChargeInput, $idempotencyKey: String) {
  refundMandateCharge(mandateId: $mandateId, chargeId: $chargeId, input: $input, idempotencyKey: $idempotencyKey) { ...RefundRecord }
}
${REFUND_RECORD}`,
    variables: ({ params, body, headers }) => ({
      mandateId: params.mandateId,
      chargeId: params.chargeId,
      input: { ...body, metadata: metadataEntries(body?.metadata) },
      idempotencyKey: headers.idempotencyKey ?? null,
    }),
    result: ({ refundMandateCharge }) => flattenRefund(refundMandateCharge),
    status: 201,
    response: refundRecord,
    errors: [...CHARGE_REFUSALS],
  }),
  defineRoute({
    method: 'GET',
    path: '/recurring/mandates/{mandate_id}/charges/{charge_id}/refunds',
    tag: 'Refunds',
    summary: "List a mandate charge's refunds",
    description:
      "Newest first. Pass pagination.next_cursor as cursor for the next page. Another merchant's charge, or another mandate's, is 404 MANDATE_CHARGE_NOT_FOUND, like an unknown one. " +
      'Filters combine (all must hold); a bad value is 400 VALIDATION_ERROR naming the parameter.',
    auth: [['merchantKey'], ['adminKey']],
    params: chargeParams,
    query: listQuery('PROCESSING, COMPLETED or FAILED', {
      reference: filterQuery.reference,
      metadata: filterQuery.metadata,
    }),
    operation: `query ListMandateChargeRefunds($mandateId: ID!, $chargeId: ID!, $first: Int, $after: String, $filter: RefundFilter) {
  mandateChargeRefunds(mandateId: $mandateId, chargeId: $chargeId, first: $first, after: $after, filter: $filter) { edges { node { ...RefundRecord } } pageInfo { hasNextPage endCursor } }
}
${REFUND_RECORD}`,
    variables: ({ params, query }) => ({
      mandateId: params.mandateId,
      chargeId: params.chargeId,
      first: query.limit ?? null,
      after: query.cursor ?? null,
      filter: filterOf(query),
    }),
    result: ({ mandateChargeRefunds }) => refundPage(mandateChargeRefunds),
    status: 200,
    response: refundPageRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'MANDATE_CHARGE_NOT_FOUND'],
  }),
];

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
    body: refundBody,
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
  ...chargeRefundRoutes,
];
