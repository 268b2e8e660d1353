import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';

// `cycleId: id`: REST names the cycle's id cycle_id, as the contract does.
const CYCLE_RECORD = `fragment CycleRecord on SettlementCycle {
  cycleId: id livemode status openedAt closedAt settledAt obligationCount trigger
  positions { bankHandle currency netAmount direction status coreReference settlementIban attempts lastError settledAt }
}`;

const positionRecord = z
  .object({
    bank_handle: z.string(),
    currency: z.string(),
    net_amount: z
      .number()
      .int()
      .describe(
        'Signed minor units: positive, the bank is owed (CREDIT); negative, it owes (DEBIT). Per currency the positions of a cycle sum to zero.',
      ),
    direction: z
      .enum(['CREDIT', 'DEBIT'])
      .describe("CREDIT: /accounts/credit to the bank's settlement_account_iban; DEBIT: /accounts/debit of it."),
    status: z
      .enum(['PENDING', 'SETTLED', 'FAILED'])
      .describe('FAILED: refused by the core; retried with the same reference and backoff until SETTLED.'),
    core_reference: z
      .string()
      .describe('stl_…:<bank_handle>:<currency>, on every call and retry: the core books it once.'),
    settlement_iban: z.string().nullable().describe("The bank's settlement_account_iban; null before the first call."),
    attempts: z.number().int().describe('Core calls made so far.'),
    last_error: z.string().nullable(),
    settled_at: z.string().nullable().describe('When the core booked it (ISO 8601 UTC).'),
  })
  .strict();

const cycleRecord = z
  .object({
    cycle_id: z.string().describe('stl_…'),
    livemode: z.boolean().describe("false for a test cycle: test obligations only, booked at the banks' test cores."),
    status: z.enum(['OPEN', 'SETTLING', 'SETTLED', 'PARTIALLY_FAILED']),
    opened_at: z.string(),
    closed_at: z.string().nullable(),
    settled_at: z.string().nullable(),
    obligation_count: z.number().int().describe('Interbank obligations the cycle took; each is in exactly one cycle.'),
    trigger: z.enum(['api', 'schedule']),
    positions: z
      .array(positionRecord)
      .describe('Non-zero positions by currency then bank; a bank whose net is zero gets no position and no call.'),
  })
  .strict();

/** Net settlement between banks (API-CONTRACT "Settlement"). */
export const settlementRoutes = [
  defineRoute({
    method: 'POST',
    path: '/settlement/cycles',
    tag: 'Settlement',
    summary: 'Run a settlement cycle now',
    description:
      'Takes every interbank obligation no cycle has taken, nets them per bank and currency (each currency sums to zero, checked before any call), and books each non-zero position once at the bank core: ' +
      'a net credit to its settlement_account_iban by /accounts/credit, a net debit by /accounts/debit, reference `stl_…:<bank_handle>:<currency>`; 5xx and timeouts are retried with the same reference, a crash is resumed. ' +
      'Answers once the positions had their first call (or after a few seconds): SETTLED, or SETTLING while calls are retried. Two runs at once make one cycle (both get it); with nothing to take, an empty SETTLED cycle. ' +
      'Cycles also run every SETTLEMENT_INTERVAL_SECONDS (0: only on demand), for live obligations. ' +
      'With `{"mode": "test"}` the cycle takes test obligations only (test-mode payments) and books them at the banks\' test cores; a live cycle never takes a test obligation.',
    auth: [['adminKey']],
    body: z.object({ mode: z.enum(['live', 'test']).optional().describe('live (default) or test.') }).strict(),
    operation: `mutation RunSettlementCycle($mode: String) { runSettlementCycle(mode: $mode) { ...CycleRecord } }
${CYCLE_RECORD}`,
    variables: ({ body }) => ({ mode: body.mode ?? null }),
    result: ({ runSettlementCycle }) => runSettlementCycle,
    status: 201,
    response: cycleRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/settlement/cycles',
    tag: 'Settlement',
    summary: 'List settlement cycles',
    description: 'Newest first, each with its positions. Prometheus: payments_unsettled_obligations{bank}.',
    auth: [['adminKey']],
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
        cursor: z.string().optional().describe('next_cursor of the previous page (a cycle id).'),
      })
      .strict(),
    operation: `query SettlementCycles($first: Int!, $after: ID) {
  settlementCycles(first: $first, after: $after) { edges { node { ...CycleRecord } } pageInfo { hasNextPage endCursor } }
}
${CYCLE_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? 20, after: query.cursor ?? null }),
    result: ({ settlementCycles: page }) => ({
      cycles: page.edges.map((edge: GraphQLData) => edge.node),
      pagination: {
        nextCursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
        hasMore: page.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        cycles: z.array(cycleRecord),
        pagination: z.object({ next_cursor: z.string().nullable(), has_more: z.boolean() }).strict(),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/settlement/cycles/{id}',
    tag: 'Settlement',
    summary: 'Read a settlement cycle',
    description:
      "An operator sees every position; a bank key sees the cycle with its own positions only (403 FORBIDDEN for a cycle it is not in). The cycle record is the bank's statement.",
    auth: [['adminKey'], ['bankKey']],
    params: z.object({ id: z.string().describe('stl_…') }).strict(),
    operation: `query SettlementCycle($id: ID!) { settlementCycle(id: $id) { ...CycleRecord } }
${CYCLE_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ settlementCycle }) => settlementCycle,
    status: 200,
    response: cycleRecord,
    errors: ['UNAUTHORIZED', 'INVALID_BANK_KEY', 'FORBIDDEN', 'SETTLEMENT_CYCLE_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/settlement/cycles/{id}/positions/{bank_handle}/{currency}/retry',
    tag: 'Settlement',
    summary: 'Retry a settlement position now',
    description:
      'A FAILED position (refused by its core, e.g. a settlement account without funds) or a PENDING one is retried with backoff anyway; this tries it again at once, with the same reference. A SETTLED position is answered as it is and never sent again.',
    auth: [['adminKey']],
    params: z.object({ id: z.string().describe('stl_…'), bank_handle: z.string(), currency: z.string() }).strict(),
    operation: `mutation RetrySettlementPosition($cycleId: ID!, $bankHandle: String!, $currency: String!) {
  retrySettlementPosition(cycleId: $cycleId, bankHandle: $bankHandle, currency: $currency) { bankHandle currency netAmount direction status coreReference settlementIban attempts lastError settledAt }
}`,
    variables: ({ params }) => ({ cycleId: params.id, bankHandle: params.bankHandle, currency: params.currency }),
    result: ({ retrySettlementPosition }) => retrySettlementPosition,
    status: 202,
    response: positionRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'SETTLEMENT_CYCLE_NOT_FOUND'],
  }),
];
