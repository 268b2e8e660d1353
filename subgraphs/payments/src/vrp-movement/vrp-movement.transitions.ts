import { transitionLookup, type Transition } from '@gateway/kernel';
import type { EngineTrigger } from '../movement/movement';
import { engineMovementTransitions, type MovementStatus } from '../movement/movement.transitions';
import type { MovementEventKind } from '../movement/requested-movement';

export type VrpMovementTrigger = 'requested' | EngineTrigger;

export type VrpMovementTransition = Transition<MovementStatus, VrpMovementTrigger, MovementEventKind | null>;

/**
 * The one table of a VRP payment's movement (the engine's, engineMovementTransitions), answering
 * open-banking as a payment order's does. The payment's own statuses are open-banking's; it
 * learns the end from the event.
 */
export const VRP_MOVEMENT_TRANSITIONS: readonly VrpMovementTransition[] = engineMovementTransitions('requested', {
  completed: 'movement.completed',
  failed: 'movement.failed',
});

export const vrpMovementTransitionFor = transitionLookup(VRP_MOVEMENT_TRANSITIONS);
