import { z } from 'zod';
import { defineRoute } from '../route';

const POSITION_FIELDS = `bankHandle currency livemode netDebitCap alertThresholds liquidityCover position reserved headroom lastCycleId`;

const positionRecord = z
  .object({
    bank_handle: z.string(),
    currency: z.string(),
    livemode: z.boolean().describe('false: the test world, with positions and caps of its own.'),
    net_debit_cap: z.number().int().nullable().describe('Minor units; null: no cap.'),
    alert_thresholds: z
      .array(z.number().int())
      .describe('Percent of the cap; each upward crossing records liquidity.threshold_reached.'),
    liquidity_cover: z.boolean(),
    position: z
      .number()
      .int()
      .describe('Minor units: owed minus owed to it in obligations no settlement cycle has taken, plus reserved.'),
    reserved: z
      .number()
      .int()
      .describe('Minor units reserved by cross-bank movements in flight of which the bank is the debtor.'),
    headroom: z
      .number()
      .int()
      .nullable()
      .describe('net_debit_cap - position; negative after a cap was lowered below the position; null without a cap.'),
    last_cycle_id: z.string().nullable().describe('The last settlement cycle that lowered the position.'),
  })
  .strict();

const capParams = z
  .object({ handle: z.string().describe('The bank.'), currency: z.string().describe('LYD, USD or EUR.') })
  .strict();
const modeQuery = z
  .object({
    mode: z.enum(['live', 'test']).optional().describe('live (default) or test: the test world has caps of its own.'),
  })
  .strict();

/** Net debit caps and positions (API-CONTRACT "Net debit caps and positions (operator, bank)", issue 48). */
export const netDebitCapRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/banks/{handle}/net-debit-caps/{currency}',
    tag: 'Settlement',
    summary: "Set a bank's net debit cap",
    description:
      "A cross-bank movement (session, mandate charge, payment order, refund) whose debtor is this bank reserves its amount on the bank's position before anything is debited, " +
      'only while position + amount <= net_debit_cap; otherwise 422 NET_DEBIT_CAP_EXCEEDED and nothing moves. A cap below the current position is allowed: the answer says so (below_position) ' +
      "and new movements are refused until the position falls. `?mode=test` sets the test world's cap (the test world has none unless set). Audited.",
    auth: [['adminKey']],
    params: capParams,
    query: modeQuery,
    body: z
      .object({
        net_debit_cap: z
          .number()
          .int('must be an integer of minor units')
          .min(0, 'must be 0 or more')
          .describe('Minor units.'),
        alert_thresholds: z
          .array(z.number().int().min(1).max(100))
          .max(5)
          .optional()
          .describe('Percent of the cap, default [80, 100].'),
        liquidity_cover: z
          .boolean()
          .optional()
          .describe(
            "true: the cap may not exceed the bank's settlement account balance (read from its core now; above it: 422 NET_DEBIT_CAP_ABOVE_LIQUIDITY).",
          ),
      })
      .strict(),
    operation: `mutation SetNetDebitCap($bankHandle: String!, $currency: String!, $input: NetDebitCapInput!, $mode: String) {
  setNetDebitCap(bankHandle: $bankHandle, currency: $currency, input: $input, mode: $mode) { ${POSITION_FIELDS} belowPosition }
}`,
    variables: ({ params, query, body }) => ({
      bankHandle: params.handle,
      currency: params.currency,
      mode: query.mode ?? null,
      input: {
        netDebitCap: body.netDebitCap,
        alertThresholds: body.alertThresholds ?? null,
        liquidityCover: body.liquidityCover ?? null,
      },
    }),
    result: ({ setNetDebitCap }) => setNetDebitCap,
    status: 200,
    response: positionRecord.extend({
      below_position: z
        .boolean()
        .describe('The cap is below the current position: new movements are refused until it falls.'),
    }),
    // With liquidity_cover the bank's core is asked for its settlement account's balance: a core
    // that refuses or does not answer is the spec's CBS_ERROR / CBS_TIMEOUT, and no cap is set.
    errors: [
      'UNAUTHORIZED',
      'FORBIDDEN',
      'VALIDATION_ERROR',
      'BANK_NOT_REGISTERED',
      'NET_DEBIT_CAP_ABOVE_LIQUIDITY',
      'CBS_ERROR',
      'CBS_TIMEOUT',
    ],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/banks/{handle}/net-debit-caps/{currency}',
    tag: 'Settlement',
    summary: "Remove a bank's net debit cap",
    description: "No cap in that currency and world: today's behaviour. The position is kept. Idempotent; audited.",
    auth: [['adminKey']],
    params: capParams,
    query: modeQuery,
    operation: `mutation RemoveNetDebitCap($bankHandle: String!, $currency: String!, $mode: String) {
  removeNetDebitCap(bankHandle: $bankHandle, currency: $currency, mode: $mode)
}`,
    variables: ({ params, query }) => ({
      bankHandle: params.handle,
      currency: params.currency,
      mode: query.mode ?? null,
    }),
    status: 204,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'VALIDATION_ERROR'],
  }),
  defineRoute({
    method: 'GET',
    path: '/banks/{handle}/positions',
    tag: 'Settlement',
    summary: "Read a bank's net debit positions",
    description:
      "Per currency and world: net_debit_cap, position, reserved, headroom and the last cycle that lowered it. The bank's own key, or an admin key for any bank. " +
      "Events liquidity.threshold_reached and liquidity.cap_reached are recorded once per upward crossing and sent to the operator's and the bank's webhook endpoints (POST /webhooks/endpoints with an admin key or the bank key).",
    auth: [['adminKey'], ['bankKey']],
    params: z.object({ handle: z.string().describe('The bank.') }).strict(),
    operation: `query BankPositions($handle: String!) { bankPositions(handle: $handle) { ${POSITION_FIELDS} } }`,
    variables: ({ params }) => ({ handle: params.handle }),
    result: ({ bankPositions }) => ({ positions: bankPositions }),
    status: 200,
    response: z.object({ positions: z.array(positionRecord) }).strict(),
    errors: ['UNAUTHORIZED', 'INVALID_BANK_KEY', 'FORBIDDEN'],
  }),
];
