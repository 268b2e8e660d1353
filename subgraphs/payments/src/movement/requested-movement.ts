import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '@gateway/events';
import type { KindMovement } from './movement.kind';

/*
 * What the kinds open-banking asks for share (a payment order's movement, a VRP payment): one
 * request (movement.requested, open-banking's), one pair of answers (movement.completed /
 * movement.failed, aggregate 'movement', no audience) and one row shape (the engine's columns and
 * the TPP). Each kind keeps its own table, its own one writer and its own transition table
 * (order-movement/, vrp-movement/); what they say to open-banking is said here once.
 */

export const MOVEMENT_AGGREGATE = 'movement';

/** Internal events to open-banking (no audience): the engine's answer to movement.requested. */
export type MovementEventKind = 'movement.completed' | 'movement.failed';

/** A movement open-banking requested, whatever its kind: a declared kind's movement and the TPP it is for. */
export type RequestedMovement = KindMovement & { tppId: string };

/** What the request fixes of a requested movement (its row's first values). */
export type NewRequestedMovement = Pick<
  RequestedMovement,
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

/** What open-banking needs to move its payment: the outcome, and why a failure failed. */
export function movementEventData(movement: RequestedMovement): Record<string, unknown> {
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

/** The answer's event (a kind's `event` in its declaration, movement.kind.ts). */
export const movementEvent = (kind: MovementEventKind, movement: RequestedMovement) => ({
  kind,
  aggregateType: MOVEMENT_AGGREGATE,
  aggregateId: movement.id,
  audience: null,
  data: movementEventData(movement),
});

/**
 * The columns and values of a requested movement's 'requested' move, once per id: what follows
 * `insert into "payments"."<its table>"` in its owner's statement. `on conflict do nothing`, so
 * that a duplicate delivery or the sweeper asking again writes nothing and does not abort the
 * statement as a failed insert would; `returning 1` says whether the row was written.
 */
export const REQUESTED_MOVEMENT_VALUES = `("id", "tpp_id", "livemode", "status", "debtor_bank", "debtor_iban", "creditor_bank", "creditor_iban", "amount", "currency", "description", "settlement_type", "created_at", "updated_at")
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("id") do nothing returning 1`;

/** The bindings of REQUESTED_MOVEMENT_VALUES, in its columns' order. */
export const requestedMovementBindings = (fields: NewRequestedMovement, status: string, now: Date): unknown[] => [
  fields.id,
  fields.tppId,
  fields.livemode,
  status,
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
];

/**
 * A finished movement requested again (open-banking's sweeper did not hear the answer): the
 * answer once more, never the movement. Open-banking ignores an answer it already has.
 */
export function answerAgain(em: EntityManager, movement: RequestedMovement, now: Date): boolean {
  if (movement.status === 'COMPLETED') recordEvent(em, movementEvent('movement.completed', movement), now);
  else if (movement.status === 'FAILED') recordEvent(em, movementEvent('movement.failed', movement), now);
  else return false;
  return true;
}
