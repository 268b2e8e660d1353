import { transitionLookup, type Transition } from '@gateway/kernel';
import type { EngineTrigger } from '../movement/movement';
import {
  engineMovementTransitions,
  FINAL_MOVEMENT_STATUSES,
  MOVEMENT_REACHED_AT,
  MOVEMENT_STATUSES,
  type MovementStatus,
} from '../movement/movement.transitions';
import type { MovementEventKind } from '../movement/requested-movement';

export type OrderMovementStatus = MovementStatus;
export const ORDER_MOVEMENT_STATUSES = MOVEMENT_STATUSES;
export const FINAL_ORDER_MOVEMENT_STATUSES = FINAL_MOVEMENT_STATUSES;
export const ORDER_MOVEMENT_REACHED_AT = MOVEMENT_REACHED_AT;

export type OrderMovementTrigger = 'requested' | EngineTrigger;

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
