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
import { OrderMovementEntity } from './order-movement.entity';
import {
  ORDER_MOVEMENT_TRANSITIONS,
  orderMovementTransitionFor,
  type OrderMovementTrigger,
} from './order-movement.transitions';

/*
 * The one writer of payments.order_movements (CONVENTIONS "Data": one owner per table): the
 * request's row (once per order id) and every move of the transition table, each with its
 * movement.* event for open-banking in the same transaction (its shape, shared with the other
 * kind open-banking requests, is movement/requested-movement.ts').
 */

export type NewOrderMovement = NewRequestedMovement;

/**
 * The 'requested' move, once per order id, as part `movement` of the caller's statement: it
 * writes a row only the first time (not for a duplicate delivery or the sweeper asking again).
 * Raw SQL because "once" is `on conflict do nothing`, which must not abort the statement as a
 * failed insert would.
 */
export function createOrderMovementOnceIn(statement: OneStatement, fields: NewOrderMovement, now: Date): void {
  const move = orderMovementTransitionFor(null, 'requested')!;
  statement.sql(
    'movement',
    `insert into "payments"."order_movements" ${REQUESTED_MOVEMENT_VALUES}`,
    requestedMovementBindings(fields, move.to, now),
  );
}

/** Payment orders' movements as the engine executes them (movement.kind.ts): movement.* events for open-banking. */
export const orderMovements = declareMovementKind<OrderMovementEntity, OrderMovementTrigger, MovementEventKind>({
  noun: 'order movement',
  entity: OrderMovementEntity,
  transitions: ORDER_MOVEMENT_TRANSITIONS,
  event: movementEvent,
});

export const loadOrderMovement = (em: EntityManager, id: string): Promise<OrderMovementEntity | null> =>
  orderMovements.load(em, id);
