import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import type { MetadataPatch } from '../metadata/metadata.rules';
import { mergeMetadata } from '../metadata/metadata.sql';
import { establishOutcomeIn, isHeld, OUTCOME_UNKNOWN } from '../movement/held-outcome';
import type { HeldFinding } from '../movement/movement';
import { declareMovementKind } from '../movement/movement.kind';
import { releaseChargeRefundIn, reserveChargeRefundIn } from '../mandate/mandate.moves';
import { releaseRefundIn, reserveRefundIn } from '../session/session.moves';
import { RefundEntity } from './refund.entity';
import {
  failureFreesAmount,
  publicRefundStatus,
  REFUND_REACHED_AT,
  REFUND_TRANSITIONS,
  refundTransitionFor,
  type RefundEventKind,
  type RefundTrigger,
} from './refund.transitions';

/*
 * The one writer of payments.refunds (CONVENTIONS "Data": one owner per table): a refund's
 * creation, with the amount it takes of what it refunds, and every move of its transition table
 * with its refund.* event in the same statement, and the merchant's metadata (no move). What it
 * refunds is a session or a mandate charge (refundedAmountOf): its amount_refunded is its owner's
 * column, taken and given back through session.moves.ts or mandate.moves.ts, as parts of these
 * statements.
 */

/** Refund events have an aggregate of their own: the envelope's sequence orders one refund's events. */
export const REFUND_AGGREGATE = 'refund';

/** The contract's data (refund_id, session_id or charge_id, amount, currency, reference), and what a merchant acts on besides. */
export function refundEventData(refund: RefundEntity): Record<string, unknown> {
  return {
    refund_id: refund.id,
    session_id: refund.sessionId,
    ...(refund.chargeId ? { charge_id: refund.chargeId, mandate_id: refund.mandateId } : {}),
    livemode: refund.livemode,
    status: publicRefundStatus(refund.status),
    amount: Number(refund.amount),
    currency: refund.currency,
    reference: refund.reference,
    metadata: refund.metadata ?? {},
    merchant_id: refund.merchantId,
    ...(refund.status === 'FAILED' ? { failure_code: refund.failureCode } : {}),
  };
}

export type NewRefund = Pick<
  RefundEntity,
  | 'id'
  | 'sessionId'
  | 'chargeId'
  | 'mandateId'
  | 'merchantId'
  | 'livemode'
  | 'amount'
  | 'currency'
  | 'reason'
  | 'reference'
  | 'metadata'
  | 'description'
  | 'debtorBank'
  | 'debtorIban'
  | 'creditorBank'
  | 'creditorIban'
  | 'settlementType'
>;

/** A new PROCESSING refund as the 'created' move makes it, not yet written (createRefundIn writes it). */
export function newRefund(fields: NewRefund, now: Date): RefundEntity {
  const move = refundTransitionFor(null, 'created')!;
  return Object.assign(new RefundEntity(), fields, { status: move.to, createdAt: now, updatedAt: now });
}

/**
 * What a refund gives back an amount of, with the owner of its amount_refunded: a session
 * (session.moves.ts) or a mandate charge (mandate.moves.ts). `takeIn` takes the refund's amount
 * of what is left (only of a COMPLETED one of the refund's merchant, and only while it fits);
 * `giveBackIn` gives it back, written only if part `when` changed a row.
 */
interface RefundedAmount {
  takeIn(statement: OneStatement, name: string, now: Date): void;
  giveBackIn(statement: OneStatement, name: string, now: Date, when: string): void;
}

function refundedAmountOf(refund: RefundEntity): RefundedAmount {
  const { merchantId, amount } = refund;
  if (refund.chargeId !== null) {
    const charge = { chargeId: refund.chargeId, merchantId, amount };
    return {
      takeIn: (statement, name, now) => reserveChargeRefundIn(statement, name, charge, now),
      giveBackIn: (statement, name, now, when) => releaseChargeRefundIn(statement, name, charge, now, when),
    };
  }
  if (refund.sessionId === null) throw new Error(`refund ${refund.id} refunds neither a session nor a charge`);
  const session = { sessionId: refund.sessionId, merchantId, amount };
  return {
    takeIn: (statement, name, now) => reserveRefundIn(statement, name, session, now),
    giveBackIn: (statement, name, now, when) => releaseRefundIn(statement, name, session, now, when),
  };
}

/**
 * The 'created' move as parts of the caller's OneStatement: part `reserved` takes the refund's
 * amount of what is left of its session or charge (refundedAmountOf), part `refund` writes the
 * refund only if it did. The caller's execution (PaymentEngine.startIn) is written only if part
 * `refund` was. No event: the contract has none for a refund that has only started (its answer
 * is the 201).
 */
export function createRefundIn(statement: OneStatement, refund: RefundEntity, now: Date): void {
  refundedAmountOf(refund).takeIn(statement, 'reserved', now);
  statement.insert('refund', RefundEntity, { ...refund }, 'reserved');
}

/**
 * A refund that FAILED with CBS_OUTCOME_UNKNOWN kept its amount taken while an operator checked
 * whether the payer was credited (failureFreesAmount). Once the engine has the merchant's money
 * back, the payer cannot have been paid by it: the outcome is established (establishOutcomeIn)
 * and, in the same statement (part `released`), its amount is again left to refund.
 */
export function releaseHeldRefundIn(
  statement: OneStatement,
  refund: RefundEntity,
  now: Date,
  when: string,
): Partial<RefundEntity> | undefined {
  const update = establishOutcomeIn(statement, RefundEntity, refund, now, when, HELD_REFUND_RELEASED);
  if (update) refundedAmountOf(refund).giveBackIn(statement, 'released', now, 'established');
  return update;
}

/**
 * An operator's finding on a refund held at CBS_OUTCOME_UNKNOWN, after checking the cores, as
 * parts of the caller's OneStatement (the attention list's resolution): `moved`, written only if
 * part `when` changed a row and only while the refund is still held, and its event `moved_event`.
 * `credited`: the payer has the money, the refund is COMPLETED (refund.completed) and its amount
 * stays refunded. `not_credited`: the refund is FAILED for good with CBS_ERROR (refund.failed, the
 * final answer) and, in the same statement (part `released`), its amount is again left to refund.
 * Answers the columns to apply once part `moved` changed the row.
 */
export function settleHeldRefundIn(
  statement: OneStatement,
  refund: RefundEntity,
  finding: HeldFinding,
  now: Date,
  when: string,
): Partial<RefundEntity> {
  if (!isHeld(refund)) throw new Error(`refund ${refund.id} is not held at ${OUTCOME_UNKNOWN}`);
  const trigger = finding === 'credited' ? 'found_credited' : 'found_not_credited';
  const move = refundTransitionFor(refund.status, trigger)!;
  const update: Partial<RefundEntity> = {
    status: move.to,
    ...(finding === 'credited'
      ? { failureCode: null, failureDetail: null }
      : { failureCode: 'CBS_ERROR', failureDetail: HELD_REFUND_NOT_CREDITED }),
    updatedAt: now,
    ...(move.to !== refund.status ? { [REFUND_REACHED_AT[move.to]]: now } : {}),
  };
  statement.update(
    'moved',
    RefundEntity,
    { id: refund.id, status: 'FAILED', failureCode: OUTCOME_UNKNOWN },
    update,
    when,
  );
  const after = Object.assign(new RefundEntity(), refund, update);
  refundMovements.eventIn(statement, 'moved_event', move.event!, after, now, 'moved');
  if (move.to === 'FAILED') refundedAmountOf(after).giveBackIn(statement, 'released', now, 'moved');
  return update;
}

const HELD_REFUND_NOT_CREDITED =
  "an operator checked the bank cores: the payer was not credited; the merchant's debit, if booked, is given back";

const HELD_REFUND_RELEASED =
  "the bank cores' outcome was established after an operator's check: the payer was not credited " +
  "and the merchant's account was not debited or was given the money back";

const refundEvent = (kind: RefundEventKind, refund: RefundEntity) => ({
  kind,
  aggregateType: REFUND_AGGREGATE,
  aggregateId: refund.id,
  audience: refund.merchantId,
  data: refundEventData(refund),
});

/**
 * Merges a PATCH into a refund's metadata (of `merchantId`'s): false when there is no such refund
 * or the merge would pass 20 keys (nothing changes). Raw SQL: merged and limited on the row in the
 * statement, so concurrent PATCHes of different keys all keep theirs. No event.
 */
export const updateRefundMetadata = (
  em: EntityManager,
  merchantId: string,
  id: string,
  patch: MetadataPatch,
  now: Date,
): Promise<boolean> => mergeMetadata(em, 'update "payments"."refunds"', { id, merchantId }, patch, now);

/**
 * Refunds as the engine executes them (movement.kind.ts: the shape every kind shares): the refund's
 * own event aggregate and, for a FAILED refund whose money is known not to have reached the payer
 * (failureFreesAmount), part `released` of the FAILED move: its amount is again left to refund.
 */
export const refundMovements = declareMovementKind<RefundEntity, RefundTrigger, RefundEventKind>({
  noun: 'refund',
  entity: RefundEntity,
  transitions: REFUND_TRANSITIONS,
  event: refundEvent,
  alsoIn: (statement, move, after, now) => {
    if (move.to === 'FAILED' && failureFreesAmount(after.failureCode))
      refundedAmountOf(after).giveBackIn(statement, 'released', now, 'moved');
  },
  payerWholeIn: releaseHeldRefundIn,
  settleHeldIn: settleHeldRefundIn,
});

export const loadRefund = (em: EntityManager, id: string): Promise<RefundEntity | null> => refundMovements.load(em, id);
