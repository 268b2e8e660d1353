import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { recordEvent, recordEventIn } from '@gateway/events';
import type { MovementKind } from '../movement/movement';
import { OrderMovementEntity } from './order-movement.entity';
import {
  FINAL_ORDER_MOVEMENT_STATUSES,
  ORDER_MOVEMENT_REACHED_AT,
  orderMovementTransitionFor,
  refusalOf,
  type MovementEventKind,
  type OrderMovementTrigger,
} from './order-movement.transitions';

/*
 * The one writer of payments.order_movements (CONVENTIONS "Data": one owner per table): the
 * request's row (once per order id) and every move of the transition table, each with its
 * movement.* event for open-banking in the same transaction.
 */

export const MOVEMENT_AGGREGATE = 'movement';

/** What open-banking needs to move the order: the outcome, and why a failure failed. */
function movementEventData(movement: OrderMovementEntity): Record<string, unknown> {
  return {
    movement_id: movement.id,
    status: movement.status,
    settlement_type: movement.settlementType,
    creditor_bank: movement.creditorBank,
    ...(movement.status === 'FAILED'
      ? {
          failure_code: movement.failureCode,
          failure_detail: movement.failureDetail,
          refusal: refusalOf(movement.failureCode),
        }
      : {}),
  };
}

const movementEvent = (kind: MovementEventKind, movement: OrderMovementEntity) => ({
  kind,
  aggregateType: MOVEMENT_AGGREGATE,
  aggregateId: movement.id,
  audience: null,
  data: movementEventData(movement),
});

function recordMovementEvent(
  em: EntityManager,
  kind: MovementEventKind,
  movement: OrderMovementEntity,
  now: Date,
): void {
  recordEvent(em, movementEvent(kind, movement), now);
}

export type NewOrderMovement = Pick<
  OrderMovementEntity,
  | 'id'
  | 'tppId'
  | 'livemode'
  | 'debtorBank'
  | 'debtorIban'
  | 'creditorBank'
  | 'creditorIban'
  | 'amount'
  | 'currency'
  | 'description'
  | 'settlementType'
>;

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
    `insert into "payments"."order_movements" ("id", "tpp_id", "livemode", "status", "debtor_bank", "debtor_iban", "creditor_bank", "creditor_iban", "amount", "currency", "description", "settlement_type", "created_at", "updated_at")
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("id") do nothing returning 1`,
    [
      fields.id,
      fields.tppId,
      fields.livemode,
      move.to,
      fields.debtorBank,
      fields.debtorIban,
      fields.creditorBank,
      fields.creditorIban,
      fields.amount.toString(),
      fields.currency,
      fields.description,
      fields.settlementType,
      now,
      now,
    ],
  );
}

type OrderMovementChanges = Partial<Pick<OrderMovementEntity, 'failureCode' | 'failureDetail'>>;

/** A move of the table from the status read: its row of the table and the columns it sets. */
function planMove(
  movement: OrderMovementEntity,
  trigger: OrderMovementTrigger,
  now: Date,
  changes: OrderMovementChanges,
) {
  const move = orderMovementTransitionFor(movement.status, trigger);
  if (!move)
    throw new Error(`order movement ${movement.id} is ${movement.status}: ${trigger} is not a move of its table`);
  return { move, update: { ...changes, status: move.to, updatedAt: now, [ORDER_MOVEMENT_REACHED_AT[move.to]]: now } };
}

/** One move of the table, conditional on the status read, with its event, as parts of the engine's OneStatement (MovementKind.moveIn): the columns to apply once part `moved` changed the row. */
export function moveOrderMovementIn(
  statement: OneStatement,
  movement: OrderMovementEntity,
  trigger: OrderMovementTrigger,
  now: Date,
  changes: OrderMovementChanges,
  when?: string,
): Partial<OrderMovementEntity> {
  const { move, update } = planMove(movement, trigger, now, changes);
  statement.update('moved', OrderMovementEntity, { id: movement.id, status: movement.status }, update, when);
  if (move.event)
    recordEventIn(
      statement,
      'moved_event',
      movementEvent(move.event, Object.assign(new OrderMovementEntity(), movement, update)),
      now,
      'moved',
    );
  return update;
}

/**
 * A finished movement requested again (open-banking's sweeper did not hear the answer): the
 * answer once more, never the movement. Open-banking ignores an answer it already has.
 */
export function answerAgain(em: EntityManager, movement: OrderMovementEntity, now: Date): boolean {
  if (movement.status === 'COMPLETED') recordMovementEvent(em, 'movement.completed', movement, now);
  else if (movement.status === 'FAILED') recordMovementEvent(em, 'movement.failed', movement, now);
  else return false;
  return true;
}

export function loadOrderMovement(em: EntityManager, id: string): Promise<OrderMovementEntity | null> {
  return em.findOne(OrderMovementEntity, { id }, { disableIdentityMap: true });
}

/** Payment orders' movements as the engine executes them. */
export const orderMovements: MovementKind<OrderMovementEntity> = {
  load: loadOrderMovement,
  entity: OrderMovementEntity,
  moveIn: (statement, movement, trigger, now, failure, when) =>
    moveOrderMovementIn(statement, movement, trigger, now, failure ?? {}, when),
  isFinal: (movement) => FINAL_ORDER_MOVEMENT_STATUSES.has(movement.status),
};
