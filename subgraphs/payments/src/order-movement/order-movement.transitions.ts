import { transitionLookup, type Transition } from '@gateway/kernel';
import type { EngineTrigger } from '../movement/movement';
import {
  engineMovementTransitions,
  FINAL_MOVEMENT_STATUSES,
  MOVEMENT_REACHED_AT,
  MOVEMENT_STATUSES,
  type MovementStatus,
} from '../movement/movement.transitions';

export type OrderMovementStatus = MovementStatus;
export const ORDER_MOVEMENT_STATUSES = MOVEMENT_STATUSES;
export const FINAL_ORDER_MOVEMENT_STATUSES = FINAL_MOVEMENT_STATUSES;
export const ORDER_MOVEMENT_REACHED_AT = MOVEMENT_REACHED_AT;

export type OrderMovementTrigger = 'requested' | EngineTrigger;

/** Internal events to open-banking (no audience): the engine's answer to movement.requested. */
export type MovementEventKind = 'movement.completed' | 'movement.failed';

export type OrderMovementTransition = Transition<OrderMovementStatus, OrderMovementTrigger, MovementEventKind | null>;

/**
 * The one table of a payment order's movement (the engine's, engineMovementTransitions). The
 * order's own statuses are open-banking's; it learns the end from the event.
 */
export const ORDER_MOVEMENT_TRANSITIONS: readonly OrderMovementTransition[] = engineMovementTransitions('requested', {
  completed: 'movement.completed',
  failed: 'movement.failed',
});

export const orderMovementTransitionFor = transitionLookup(ORDER_MOVEMENT_TRANSITIONS);

/**
 * How open-banking should read a failure (movement.failed `refusal`): the payer's bank refused
 * for funds; a bank refused for another reason (the spec's rejected order); or no bank decided
 * (timeouts, an outcome never established).
 */
export function refusalOf(failureCode: string | null): 'funds' | 'declined' | 'error' {
  if (failureCode === 'INSUFFICIENT_FUNDS') return 'funds';
  if (
    failureCode === null ||
    ['CBS_TIMEOUT', 'CBS_OUTCOME_UNKNOWN', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'].includes(failureCode)
  )
    return 'error';
  return 'declined';
}
