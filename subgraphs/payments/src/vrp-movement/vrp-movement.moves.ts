import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { declareMovementKind } from '../movement/movement.kind';
import {
  movementEvent,
  REQUESTED_MOVEMENT_VALUES,
  requestedMovementBindings,
  type MovementEventKind,
  type NewRequestedMovement,
} from '../movement/requested-movement';
import { VrpMovementEntity } from './vrp-movement.entity';
import {
  VRP_MOVEMENT_TRANSITIONS,
  vrpMovementTransitionFor,
  type VrpMovementTrigger,
} from './vrp-movement.transitions';

/*
 * The one writer of payments.vrp_movements (CONVENTIONS "Data": one owner per table): the
 * request's row (once per VRP payment id) and every move of the transition table, each with its
 * movement.* event for open-banking in the same transaction (the payment order's answers:
 * movement/requested-movement.ts).
 */

/**
 * The 'requested' move, once per VRP payment id, as part `movement` of the caller's statement:
 * it writes a row only the first time (not for a duplicate delivery or the sweeper asking again).
 */
export function createVrpMovementOnceIn(statement: OneStatement, fields: NewRequestedMovement, now: Date): void {
  const move = vrpMovementTransitionFor(null, 'requested')!;
  statement.sql(
    'movement',
    `insert into "payments"."vrp_movements" ${REQUESTED_MOVEMENT_VALUES}`,
    requestedMovementBindings(fields, move.to, now),
  );
}

/** VRP payments as the engine executes them (movement.kind.ts): movement.* events for open-banking. */
export const vrpMovements = declareMovementKind<VrpMovementEntity, VrpMovementTrigger, MovementEventKind>({
  noun: 'VRP movement',
  entity: VrpMovementEntity,
  transitions: VRP_MOVEMENT_TRANSITIONS,
  event: movementEvent,
});

export const loadVrpMovement = (em: EntityManager, id: string): Promise<VrpMovementEntity | null> =>
  vrpMovements.load(em, id);
