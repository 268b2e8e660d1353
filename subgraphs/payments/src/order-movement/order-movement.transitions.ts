import type { EngineTrigger } from '../movement/movement';

export const ORDER_MOVEMENT_STATUSES = ['PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED'] as const;
export type OrderMovementStatus = (typeof ORDER_MOVEMENT_STATUSES)[number];

export const FINAL_ORDER_MOVEMENT_STATUSES: ReadonlySet<OrderMovementStatus> = new Set(['COMPLETED', 'FAILED']);

export type OrderMovementTrigger = 'requested' | EngineTrigger;

/** Internal events to open-banking (no audience): the engine's answer to movement.requested. */
export type MovementEventKind = 'movement.completed' | 'movement.failed';

export interface OrderMovementTransition {
  from: OrderMovementStatus | null;
  trigger: OrderMovementTrigger;
  to: OrderMovementStatus;
  /** Written to payments' outbox in the transaction of the move; null: nothing to tell yet. */
  event: MovementEventKind | null;
}

/**
 * The one table of a payment order's movement: the session's execution rows with the same
 * guarantees (same bank: COMPLETED when the credit is booked; cross bank: SETTLEMENT_PENDING
 * after the debit, COMPLETED only on the creditor bank's confirmation or the evidence of the
 * booked credit). The order's own statuses are open-banking's; it learns the end from the event.
 */
export const ORDER_MOVEMENT_TRANSITIONS: readonly OrderMovementTransition[] = [
  { from: null, trigger: 'requested', to: 'PROCESSING', event: null },
  { from: 'PROCESSING', trigger: 'internal_credit_booked', to: 'COMPLETED', event: 'movement.completed' },
  { from: 'PROCESSING', trigger: 'cross_bank_debit_booked', to: 'SETTLEMENT_PENDING', event: null },
  { from: 'PROCESSING', trigger: 'core_failure', to: 'FAILED', event: 'movement.failed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'credit_confirmed', to: 'COMPLETED', event: 'movement.completed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'credit_evidenced', to: 'COMPLETED', event: 'movement.completed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'core_failure', to: 'FAILED', event: 'movement.failed' },
];

export function orderMovementTransitionFor(from: OrderMovementStatus | null, trigger: OrderMovementTrigger): OrderMovementTransition | undefined {
  return ORDER_MOVEMENT_TRANSITIONS.find((row) => row.from === from && row.trigger === trigger);
}

export const ORDER_MOVEMENT_REACHED_AT = {
  PROCESSING: 'createdAt',
  SETTLEMENT_PENDING: 'settlementPendingAt',
  COMPLETED: 'completedAt',
  FAILED: 'failedAt',
} as const satisfies Record<OrderMovementStatus, string>;

/**
 * How open-banking should read a failure (movement.failed `refusal`): the payer's bank refused
 * for funds; a bank refused for another reason (the spec's rejected order); or no bank decided
 * (timeouts, an outcome never established).
 */
export function refusalOf(failureCode: string | null): 'funds' | 'declined' | 'error' {
  if (failureCode === 'INSUFFICIENT_FUNDS') return 'funds';
  if (failureCode === null || ['CBS_TIMEOUT', 'CBS_OUTCOME_UNKNOWN', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'].includes(failureCode)) return 'error';
  return 'declined';
}
