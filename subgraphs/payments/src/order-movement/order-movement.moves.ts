import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { recordEvent } from '@gateway/events';
import { declareMovementKind } from '../movement/movement.kind';
import { OrderMovementEntity } from './order-movement.entity';
import {
  ORDER_MOVEMENT_TRANSITIONS,
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

/** Payment orders' movements as the engine executes them (movement.kind.ts): movement.* events for open-banking. */
export const orderMovements = declareMovementKind<OrderMovementEntity, OrderMovementTrigger, MovementEventKind>({
  noun: 'order movement',
  entity: OrderMovementEntity,
  transitions: ORDER_MOVEMENT_TRANSITIONS,
  event: movementEvent,
});

export const loadOrderMovement = (em: EntityManager, id: string): Promise<OrderMovementEntity | null> =>
  orderMovements.load(em, id);
