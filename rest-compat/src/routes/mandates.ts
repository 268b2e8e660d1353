import { z } from 'zod';
import { maskAlias } from '../pages/html';
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

// `mandateId: id`: the REST record names the id mandate_id, as the contract's response does.
const MANDATE_RECORD = `fragment MandateRecord on Mandate {
  mandateId: id livemode merchantId status customerAlias customerBank { handle } amount currency interval description startDate nextChargeDate confirmUrl
  revokedBy acceptance { acceptedAt ipAddress userAgent } createdAt confirmedAt cancelledAt failedAt metadata { key value }
}`;
const CHARGE_RECORD = `fragment ChargeRecord on MandateCharge {
  chargeId: id livemode mandateId status amount amountRefunded currency reference periodStart settlementType failureCode failureDetail createdAt completedAt failedAt
  metadata { key value }
}`;

const nullableTime = z.string().nullable().describe('ISO 8601 UTC; null until reached.');
const mandateParams = z.object({ mandate_id: z.string().describe('mdt_…') }).strict();
const pagination = z
  .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
  .strict();

export const mandateRecord = z
  .object({
    mandate_id: z.string().describe('mdt_…'),
    livemode: z
      .boolean()
      .describe("false for a test object (a test credential's): its money moves only at test cores."),
    merchant_id: z.string(),
    status: z.enum(['PENDING_CONFIRMATION', 'ACTIVE', 'CANCELLED', 'FAILED']),
    customer_alias: z.string(),
    customer_bank: z.string().describe("Handle of the customer's bank."),
    amount: z.number().int().describe('The most one charge may take, in minor units.'),
    currency: z.string(),
    interval: z.enum(['weekly', 'monthly', 'yearly']),
    description: z.string().nullable(),
    start_date: z.string().describe('YYYY-MM-DD.'),
    next_charge_date: z
      .string()
      .nullable()
      .describe('YYYY-MM-DD from which the next charge may be made; null once CANCELLED or FAILED.'),
    confirm_url: z.string().describe('Send the customer here to confirm with an OTP.'),
    revoked_by: z.string().nullable().describe('merchant, customer or bank, once CANCELLED.'),
    acceptance: z
      .object({ accepted_at: z.string(), ip_address: z.string().nullable(), user_agent: z.string().nullable() })
      .strict()
      .nullable()
      .describe("The customer's acceptance (evidence), once confirmed."),
    created_at: z.string(),
    confirmed_at: nullableTime,
    cancelled_at: nullableTime,
    failed_at: nullableTime,
    metadata: metadataObject,
  })
  .strict();

export const chargeRecord = z
  .object({
    charge_id: z.string().describe('chg_…'),
    livemode: z
      .boolean()
      .describe("false for a test object (a test credential's): its money moves only at test cores."),
    mandate_id: z.string(),
    status: z.enum(['PROCESSING', 'COMPLETED', 'FAILED']),
    amount: z.number().int().describe('Minor units.'),
    amount_refunded: z
      .number()
      .int()
      .describe(
        'Minor units given back by refunds not FAILED (POST /recurring/mandates/{mandate_id}/charges/{charge_id}/refunds); at most amount.',
      ),
    currency: z.string(),
    reference: z.string(),
    period_start: z.string().describe('YYYY-MM-DD: the first day of the interval period it pays.'),
    settlement_type: z.string().describe('internal (same bank) or rail (cross bank).'),
    failure_code: z.string().nullable(),
    failure_detail: z.string().nullable(),
    created_at: z.string(),
    completed_at: nullableTime,
    failed_at: nullableTime,
    metadata: metadataObject,
  })
  .strict();

/** Enums and bank stubs as REST spells them. */
const flattenMandate = (mandate: GraphQLData) => ({
  ...mandate,
  interval: String(mandate.interval).toLowerCase(),
  customerBank: mandate.customerBank.handle,
  metadata: metadataObjectOf(mandate.metadata),
});
const flattenCharge = (charge: GraphQLData) => ({ ...charge, metadata: metadataObjectOf(charge.metadata) });
const createdMetadata = metadataObject
  .nullish()
  .describe(
    "The merchant's own key-value pairs (up to 20 keys of 1-40 characters, values up to 500), returned in the record and its webhooks.",
  );
const INTERVALS: Record<string, string> = { weekly: 'WEEKLY', monthly: 'MONTHLY', yearly: 'YEARLY' };

export const mandateRoutes = [
  defineRoute({
    method: 'POST',
    path: '/recurring/mandates',
    tag: 'Mandates',
    summary: 'Create a recurring mandate',
    description:
      "The customer's alias is resolved now; the merchant needs a settlement_iban (charges are paid into it). A currency other than the customer's account's or the settlement_iban's is 422 CURRENCY_MISMATCH. " +
      'The mandate is PENDING_CONFIRMATION until the customer confirms at ' +
      'confirm_url with an OTP from their bank. Idempotency-Key: the same request within 24 hours answers the same mandate.',
    auth: [['merchantKey']],
    idempotent: true,
    body: z
      .object({
        customer_alias: z.string().describe('handle or handle@bank_handle.'),
        amount: z.number().int().describe('Positive integer of minor units: the most one charge may take.'),
        currency: z.string().describe('LYD, USD or EUR.'),
        interval: z
          .enum(['weekly', 'monthly', 'yearly'], { error: 'must be weekly, monthly or yearly' })
          .describe('Calendar month for monthly: a start on the 31st charges on the last day of shorter months.'),
        description: z.string().nullish().describe('1-500 characters, shown to the customer.'),
        start_date: z.string().describe('YYYY-MM-DD: no charge before it.'),
        metadata: createdMetadata,
      })
      .strict(),
    operation: `mutation CreateMandate($input: CreateMandateInput!, $idempotencyKey: String) { createMandate(input: $input, idempotencyKey: $idempotencyKey) { ...MandateRecord } }
${MANDATE_RECORD}`,
    variables: ({ body, headers }) => ({
      input: { ...body, interval: INTERVALS[body.interval], metadata: metadataEntries(body.metadata) },
      idempotencyKey: headers.idempotencyKey ?? null,
    }),
    result: ({ createMandate }) => flattenMandate(createMandate),
    status: 201,
    response: mandateRecord,
    errors: [
      'INVALID_API_KEY',
      'FORBIDDEN',
      'ALIAS_NOT_FOUND',
      'ALIAS_INACTIVE',
      'BANK_NOT_PARTICIPATING',
      'CURRENCY_MISMATCH',
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_KEY_IN_USE',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/recurring/mandates/{mandate_id}',
    tag: 'Mandates',
    summary: 'Read a mandate',
    description: "The merchant's own mandates only: another merchant's is 404 MANDATE_NOT_FOUND, like an unknown one.",
    auth: [['merchantKey'], ['adminKey']],
    params: mandateParams,
    operation: `query GetMandate($id: ID!) { mandate(id: $id) { ...MandateRecord } }
${MANDATE_RECORD}`,
    variables: ({ params }) => ({ id: params.mandateId }),
    result: ({ mandate }) => flattenMandate(mandate),
    status: 200,
    response: mandateRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'MANDATE_NOT_FOUND'],
  }),
  defineRoute({
    method: 'GET',
    path: '/recurring/mandates',
    tag: 'Mandates',
    summary: "List the merchant's mandates",
    description:
      'Newest first. Pass pagination.next_cursor as cursor for the next page. Filters combine (all must hold); a bad value is 400 VALIDATION_ERROR naming the parameter.',
    auth: [['merchantKey']],
    query: listQuery('PENDING_CONFIRMATION, ACTIVE, CANCELLED or FAILED', { metadata: filterQuery.metadata }),
    operation: `query ListMandates($first: Int, $after: String, $filter: MandateFilter) { mandates(first: $first, after: $after, filter: $filter) { edges { node { ...MandateRecord } } pageInfo { hasNextPage endCursor } } }
${MANDATE_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? null, after: query.cursor ?? null, filter: filterOf(query) }),
    result: ({ mandates }) => ({
      mandates: mandates.edges.map((edge: GraphQLData) => flattenMandate(edge.node)),
      pagination: {
        nextCursor: mandates.pageInfo.hasNextPage ? mandates.pageInfo.endCursor : null,
        hasMore: mandates.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z.object({ mandates: z.array(mandateRecord), pagination }).strict(),
    errors: ['INVALID_API_KEY', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/recurring/mandates/{mandate_id}',
    tag: 'Mandates',
    summary: 'Cancel a mandate',
    description:
      'CANCELLED (revoked_by merchant), with mandate.cancelled; charges are refused afterwards (422 MANDATE_NOT_ACTIVE). Cancelling again is the same answer.',
    auth: [['merchantKey'], ['adminKey']],
    params: mandateParams,
    operation: `mutation CancelMandate($id: ID!) { cancelMandate(id: $id) { mandateId: id status } }`,
    variables: ({ params }) => ({ id: params.mandateId }),
    status: 204,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'MANDATE_NOT_FOUND', 'MANDATE_NOT_ACTIVE'],
  }),
  defineRoute({
    method: 'POST',
    path: '/recurring/mandates/{mandate_id}/charge',
    tag: 'Mandates',
    summary: 'Charge a mandate',
    description:
      'Moves up to the mandate amount from the customer to the merchant’s settlement_iban through the payment engine (no OTP: the mandate is the authorisation). ' +
      'One charge per interval period (a FAILED one frees its period, except one FAILED with CBS_OUTCOME_UNKNOWN: the customer may have been debited, so it holds the period until an operator has had the money given back), none before start_date. Answers the charge as it stands after a short wait: COMPLETED (same bank), PROCESSING ' +
      '(cross bank: until the creditor bank confirms) or FAILED; mandate.charge.completed or mandate.charge.failed follows by webhook. Idempotency-Key: the same request answers the same charge. ' +
      'While the customer’s or the merchant’s bank is suspended by the operator: 422 BANK_NOT_PARTICIPATING, nothing is charged and the period stays chargeable after the bank is resumed.',
    auth: [['merchantKey']],
    idempotent: true,
    params: mandateParams,
    body: z
      .object({
        amount: z.number().int().describe('Minor units, at most the mandate amount.'),
        reference: z.string().describe("1-128 characters: the merchant's reference."),
        metadata: createdMetadata,
      })
      .strict(),
    operation: `mutation ChargeMandate($id: ID!, $input: ChargeMandateInput!, $idempotencyKey: String) { chargeMandate(id: $id, input: $input, idempotencyKey: $idempotencyKey) { ...ChargeRecord } }
${CHARGE_RECORD}`,
    variables: ({ params, body, headers }) => ({
      id: params.mandateId,
      input: { ...body, metadata: metadataEntries(body.metadata) },
      idempotencyKey: headers.idempotencyKey ?? null,
    }),
    result: ({ chargeMandate }) => flattenCharge(chargeMandate),
    status: 201,
    response: chargeRecord,
    errors: [
      'INVALID_API_KEY',
      'FORBIDDEN',
      'MANDATE_NOT_FOUND',
      'MANDATE_NOT_ACTIVE',
      'MANDATE_LIMIT_EXCEEDED',
      'MANDATE_NOT_STARTED',
      'BANK_NOT_PARTICIPATING',
      'CURRENCY_MISMATCH',
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_KEY_IN_USE',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/recurring/mandates/{mandate_id}/charges',
    tag: 'Mandates',
    summary: "List a mandate's charges",
    description:
      'Newest first. Pass pagination.next_cursor as cursor for the next page. Filters combine (all must hold); a bad value is 400 VALIDATION_ERROR naming the parameter.',
    auth: [['merchantKey'], ['adminKey']],
    params: mandateParams,
    query: listQuery('PROCESSING, COMPLETED or FAILED', {
      reference: filterQuery.reference,
      metadata: filterQuery.metadata,
    }),
    operation: `query ListMandateCharges($id: ID!, $first: Int, $after: String, $filter: MandateChargeFilter) {
  mandate(id: $id) { charges(first: $first, after: $after, filter: $filter) { edges { node { ...ChargeRecord } } pageInfo { hasNextPage endCursor } } }
}
${CHARGE_RECORD}`,
    variables: ({ params, query }) => ({
      id: params.mandateId,
      first: query.limit ?? null,
      after: query.cursor ?? null,
      filter: filterOf(query),
    }),
    result: ({ mandate }) => ({
      charges: mandate.charges.edges.map((edge: GraphQLData) => flattenCharge(edge.node)),
      pagination: {
        nextCursor: mandate.charges.pageInfo.hasNextPage ? mandate.charges.pageInfo.endCursor : null,
        hasMore: mandate.charges.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z.object({ charges: z.array(chargeRecord), pagination }).strict(),
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'MANDATE_NOT_FOUND'],
  }),
  defineRoute({
    method: 'GET',
    path: '/mandates/{mandate_id}/confirm',
    tag: 'Mandates: customer',
    summary: 'The confirmation page (confirm_url), or what it shows as JSON',
    description:
      'Public: the mandate id is the capability. With Accept: application/json, what the page shows: merchant, amount, interval, start date, the customer alias (masked) and bank (nothing secret).',
    page:
      "The confirmation page (text/html): who will charge, up to how much, how often and from when, and a field for the OTP from the customer's bank; " +
      'posts to POST /recurring/mandates/{mandate_id}/confirm. ?error=<code> shows a refusal; 404 page for an unknown mandate.',
    auth: [],
    params: mandateParams,
    operation: `query MandateConfirmation($id: ID!) {
  mandateConfirmation(id: $id) { mandateId status merchantName amount currency interval description startDate customerAlias customerBank { handle displayName } otpAttemptsLeft }
}`,
    variables: ({ params }) => ({ id: params.mandateId }),
    result: ({ mandateConfirmation: view }) => ({
      ...view,
      customerAlias: maskAlias(view.customerAlias),
      interval: String(view.interval).toLowerCase(),
      customerBank: view.customerBank.handle,
      customerBankName: view.customerBank.displayName ?? view.customerBank.handle,
    }),
    status: 200,
    response: z
      .object({
        mandate_id: z.string(),
        status: z.enum(['PENDING_CONFIRMATION', 'ACTIVE', 'CANCELLED', 'FAILED']),
        merchant_name: z.string(),
        amount: z.number().int(),
        currency: z.string(),
        interval: z.enum(['weekly', 'monthly', 'yearly']),
        description: z.string().nullable(),
        start_date: z.string(),
        customer_alias: z.string().describe('Masked as the page shows it: "am***@alpha".'),
        customer_bank: z.string(),
        customer_bank_name: z.string(),
        otp_attempts_left: z.number().int().describe('Wrong OTPs still allowed before the mandate fails.'),
      })
      .strict(),
    errors: ['MANDATE_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/recurring/mandates/{mandate_id}/confirm',
    tag: 'Mandates: customer',
    summary: 'Confirm a mandate with the OTP (customer)',
    description:
      "Called by the confirmation page. The OTP is checked by the customer's bank; accepted, the mandate is ACTIVE (mandate.activated) and the acceptance (time, IP address, user agent) is kept. " +
      'The third wrong OTP FAILS the mandate. The same confirmation sent again once ACTIVE answers ACTIVE. ' +
      'Posted as a form (application/x-www-form-urlencoded: otp), it answers 303 See Other back to the page (with ?error=<code> after a refusal).',
    auth: [],
    params: mandateParams,
    bodyTypes: ['json', 'form'],
    body: z.object({ otp: z.string().describe("One-time password from the customer's bank.") }).strict(),
    htmlForm: {
      fields: z.object({ otp: z.string().describe("One-time password from the customer's bank.") }).strict(),
      body: (fields) => ({ otp: fields.otp }),
      success: ({ confirmMandate }) => `/mandates/${encodeURIComponent(confirmMandate.mandateId)}/confirm`,
      failure: (path, code) =>
        `/mandates/${encodeURIComponent(path.mandate_id ?? '')}/confirm?error=${encodeURIComponent(code)}`,
    },
    operation: `mutation ConfirmMandate($id: ID!, $otp: String!, $userAgent: String) { confirmMandate(id: $id, otp: $otp, userAgent: $userAgent) { mandateId status } }`,
    variables: ({ params, body, headers }) => ({
      id: params.mandateId,
      otp: body.otp,
      userAgent: headers.userAgent ?? null,
    }),
    result: ({ confirmMandate }) => confirmMandate,
    status: 200,
    response: z.object({ mandate_id: z.string(), status: z.enum(['ACTIVE']) }).strict(),
    errors: [
      'OTP_INVALID',
      'RATE_LIMITED',
      'MANDATE_NOT_FOUND',
      'MANDATE_NOT_PENDING_CONFIRMATION',
      'BANK_NOT_PARTICIPATING',
      'CBS_TIMEOUT',
      'CBS_ERROR',
    ],
  }),
  defineRoute({
    method: 'POST',
    path: '/recurring/mandates/{mandate_id}/revoke',
    tag: 'Mandates',
    summary: "Revoke a mandate (the customer's bank)",
    description:
      "Our addition: the customer's bank (its bank key) revokes a mandate of its customer, for the customer (revoked_by customer) or on its own account (bank): CANCELLED with mandate.cancelled. " +
      "Another bank's customer's mandate is 404 MANDATE_NOT_FOUND.",
    auth: [['bankKey']],
    params: mandateParams,
    body: z.object({ revoked_by: z.string().describe('customer or bank.') }).strict(),
    operation: `mutation RevokeMandate($id: ID!, $revokedBy: String!) { revokeMandate(id: $id, revokedBy: $revokedBy) { mandateId: id status revokedBy cancelledAt } }`,
    variables: ({ params, body }) => ({ id: params.mandateId, revokedBy: body.revokedBy }),
    result: ({ revokeMandate }) => revokeMandate,
    status: 200,
    response: z
      .object({
        mandate_id: z.string(),
        status: z.enum(['CANCELLED']),
        revoked_by: z.string(),
        cancelled_at: z.string(),
      })
      .strict(),
    errors: ['INVALID_BANK_KEY', 'FORBIDDEN', 'MANDATE_NOT_FOUND', 'MANDATE_NOT_ACTIVE'],
  }),
  defineRoute({
    method: 'POST',
    path: '/recurring/mandates/{mandate_id}/test-clock/advance',
    tag: 'Mandates',
    summary: "Advance a test mandate's clock",
    description:
      "Our addition, test mode only (mk_test_ keys; a live key is 403): moves this mandate's own clock forward by `days`, like Stripe's test clocks, so the next interval period can be " +
      'charged without waiting. Answers the mandate (next_charge_date moves with the clock).',
    auth: [['merchantKey']],
    params: mandateParams,
    body: z.object({ days: z.number().int().describe('1 to 3660.') }).strict(),
    operation: `mutation AdvanceMandateTestClock($id: ID!, $days: Int!) { advanceMandateTestClock(id: $id, days: $days) { ...MandateRecord } }
${MANDATE_RECORD}`,
    variables: ({ params, body }) => ({ id: params.mandateId, days: body.days }),
    result: ({ advanceMandateTestClock }) => flattenMandate(advanceMandateTestClock),
    status: 200,
    response: mandateRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'MANDATE_NOT_FOUND'],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/recurring/mandates/{mandate_id}',
    tag: 'Mandates',
    summary: "Update a mandate's metadata",
    description:
      'Merges metadata into the mandate, whatever its status: keys sent are set, a key sent as "" is removed, keys not sent stay. ' +
      'Past 20 keys in all, a key over 40 characters or a value over 500: 400 VALIDATION_ERROR and nothing changes.',
    auth: [['merchantKey']],
    params: mandateParams,
    body: metadataPatchBody,
    operation: `mutation UpdateMandateMetadata($id: ID!, $metadata: [MetadataEntryInput!]!) { updateMandateMetadata(id: $id, metadata: $metadata) { ...MandateRecord } }
${MANDATE_RECORD}`,
    variables: ({ params, body }) => ({ id: params.mandateId, metadata: metadataEntries(body.metadata) }),
    result: ({ updateMandateMetadata }) => flattenMandate(updateMandateMetadata),
    status: 200,
    response: mandateRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'MANDATE_NOT_FOUND'],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/recurring/mandates/{mandate_id}/charges/{charge_id}',
    tag: 'Mandates',
    summary: "Update a charge's metadata",
    description:
      'Merges metadata into a charge of the mandate, whatever its status: keys sent are set, a key sent as "" is removed, keys not sent stay. ' +
      "Another mandate's charge is 404 MANDATE_CHARGE_NOT_FOUND. Past 20 keys in all, a key over 40 characters or a value over 500: 400 VALIDATION_ERROR and nothing changes.",
    auth: [['merchantKey']],
    params: z.object({ mandate_id: z.string().describe('mdt_…'), charge_id: z.string().describe('chg_…') }).strict(),
    body: metadataPatchBody,
    operation: `mutation UpdateMandateChargeMetadata($id: ID!, $mandateId: ID, $metadata: [MetadataEntryInput!]!) {
  updateMandateChargeMetadata(id: $id, mandateId: $mandateId, metadata: $metadata) { ...ChargeRecord }
}
${CHARGE_RECORD}`,
    variables: ({ params, body }) => ({
      id: params.chargeId,
      mandateId: params.mandateId,
      metadata: metadataEntries(body.metadata),
    }),
    result: ({ updateMandateChargeMetadata }) => flattenCharge(updateMandateChargeMetadata),
    status: 200,
    response: chargeRecord,
    errors: ['INVALID_API_KEY', 'FORBIDDEN', 'MANDATE_CHARGE_NOT_FOUND'],
  }),
];
