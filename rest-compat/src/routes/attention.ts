import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';

const MOVEMENT_RECORD = `fragment MovementRecord on MovementNeedingAttention {
  sessionId kind step reason since amount currency debtorBank debtorIban creditorBank creditorIban sessionStatus failureCode
  debitBookedAt creditBookedAt reversalBookedAt lastError resolution resolvedAt
}`;

const when = (what: string) => z.string().nullable().describe(`${what} (ISO 8601 UTC); null if not.`);

const movementRecord = z
  .object({
    session_id: z
      .string()
      .describe(
        'The movement: a payment session (ops_…), mandate charge (chg_…), payment order (po_…) or refund (rfd_…); also the core reference of its debit and credit.',
      ),
    kind: z
      .enum(['session', 'mandate_charge', 'payment_order', 'vrp_payment', 'refund'])
      .describe('What the movement is.'),
    step: z
      .string()
      .describe(
        'Where the engine stopped: resolve_debit, credit, confirm or reverse; after a resolution, the step it goes on with.',
      ),
    reason: z.string(),
    since: z.string().describe('When the engine handed it over (ISO 8601 UTC).'),
    amount: z.number().int().describe('Minor units.'),
    currency: z.string(),
    debtor_bank: z.string().nullable(),
    debtor_iban: z.string(),
    creditor_bank: z.string(),
    creditor_iban: z.string(),
    session_status: z
      .string()
      .describe("The movement's status, the merchant's (or TPP's) answer: FAILED, or COMPLETED for a rail credit."),
    failure_code: z
      .string()
      .nullable()
      .describe('CBS_OUTCOME_UNKNOWN when the outcome could not be established in time.'),
    debit_booked_at: when('When the debit was seen booked'),
    credit_booked_at: when('When the credit was seen booked'),
    reversal_booked_at: when('When the reversal was seen booked'),
    last_error: z.string().nullable(),
    resolution: z.string().nullable().describe("The operator's decision and note; null while it waits."),
    resolved_at: z.string().nullable(),
  })
  .strict();

/** The operator's "needs attention" list (DESIGN "Money movement"; issue: no money left behind). */
export const attentionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/attention',
    tag: 'Operations',
    summary: 'List payment movements that need an operator',
    description:
      'Movements the engine could not settle: a bank core whose answers stayed unusable past the outcome deadline (default 10 minutes; the merchant got FAILED with failure_code CBS_OUTCOME_UNKNOWN), ' +
      'a reversal refused for good, a rail credit never confirmed whose statement shows no credit. Oldest first. Prometheus: payments_movements_needing_attention.',
    auth: [['adminKey']],
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
        cursor: z.string().optional().describe('next_cursor of the previous page (a movement id).'),
      })
      .strict(),
    operation: `query MovementsNeedingAttention($first: Int!, $after: ID) {
  movementsNeedingAttention(first: $first, after: $after) { edges { node { ...MovementRecord } } pageInfo { hasNextPage endCursor } }
}
${MOVEMENT_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? 20, after: query.cursor ?? null }),
    result: ({ movementsNeedingAttention: page }) => ({
      movements: page.edges.map((edge: GraphQLData) => edge.node),
      pagination: {
        nextCursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
        hasMore: page.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        movements: z.array(movementRecord),
        pagination: z.object({ next_cursor: z.string().nullable(), has_more: z.boolean() }).strict(),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'POST',
    path: '/admin/attention/{session_id}/resolve',
    tag: 'Operations',
    summary: "Record an operator's decision on a movement",
    description:
      'RETRY: take the step up again (replays and the core statement, fresh deadline). REFUND_PAYER: the payer was debited and the money not delivered: the engine reverses the debit (reference `<session_id>:reversal`, never twice). ' +
      'CLOSE: settled outside the gateway. The engine carries out RETRY and REFUND_PAYER within seconds. ' +
      'For a refund held at CBS_OUTCOME_UNKNOWN (its amount kept taken while the payer may have been credited), after checking the cores: ' +
      'CREDITED: the payer has the money; the refund is COMPLETED (refund.completed), its amount stays refunded (only once its credit was sent: step credit or confirm; else 400). ' +
      "NOT_CREDITED: the refund FAILS for good with CBS_ERROR (refund.failed), its amount can be refunded again at once, and the engine gives the merchant's debit back (reference `<refund_id>:reversal`, once) if it was taken. " +
      'Both are audited (attention.resolved); the same finding sent again answers 200 with the refund as it is; any other movement, or a refund not held, is 409 REFUND_NOT_HELD.',
    auth: [['adminKey']],
    params: z.object({ session_id: z.string().describe('The movement id: ops_…, chg_…, po_… or rfd_….') }).strict(),
    body: z
      .object({
        action: z.enum(['RETRY', 'REFUND_PAYER', 'CLOSE', 'CREDITED', 'NOT_CREDITED']),
        note: z.string().min(1).max(500).describe('What was checked at the bank(s).'),
      })
      .strict(),
    operation: `mutation ResolveMovement($sessionId: ID!, $action: MovementResolution!, $note: String!) { resolveMovement(sessionId: $sessionId, action: $action, note: $note) { ...MovementRecord } }
${MOVEMENT_RECORD}`,
    variables: ({ params, body }) => ({ sessionId: params.sessionId, action: body.action, note: body.note }),
    result: ({ resolveMovement }) => resolveMovement,
    status: 200,
    response: movementRecord,
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'MOVEMENT_NOT_FOUND', 'REFUND_NOT_HELD'],
  }),
];
