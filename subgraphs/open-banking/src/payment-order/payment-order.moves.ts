import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '@gateway/events';
import { PaymentOrderEntity } from './payment-order.entity';
import {
  ORDER_REACHED_AT,
  orderRefusal,
  orderTransitionFor,
  type PaymentOrderEventKind,
  type PaymentOrderTrigger,
} from './payment-order.transitions';

/*
 * The one writer of open_banking.payment_orders (CONVENTIONS "Data": one owner per table): every
 * change of an order is a move of the transition table (creation included) and writes, in the
 * same transaction, its payment_order.* event for the TPP and, when the move hands the order to
 * the payments engine, movement.requested (docs/payment-orders.md). Other folders read orders
 * and change them only through here.
 */

export const PAYMENT_ORDER_AGGREGATE = 'payment_order';
/** Internal events between open-banking and payments: no audience, never delivered to a TPP. */
export const MOVEMENT_AGGREGATE = 'movement';
export const MOVEMENT_REQUESTED = 'movement.requested';

/** The event payload a TPP gets: the order as GET /ob/payment-orders/{id} shows it, snake_case. */
export function paymentOrderEventData(order: PaymentOrderEntity): Record<string, unknown> {
  return {
    payment_order_id: order.id,
    consent_id: order.consentId,
    livemode: order.livemode,
    status: order.status,
    amount: Number(order.amount),
    currency: order.currency,
    source_account_id: order.sourceAccountId,
    destination: { type: order.destinationType, value: order.creditorIban },
    ...(order.scaUrl && order.status === 'PENDING_SCA' ? { sca_url: order.scaUrl } : {}),
    ...(order.failureCode ? { failure_code: order.failureCode } : {}),
  };
}

/**
 * What the payments engine needs to execute the order, and nothing a TPP chose beyond it. The
 * order id is the movement's id and its core reference: a second request with it executes nothing
 * twice (payments creates the execution idempotently by this id).
 */
export function movementRequestData(order: PaymentOrderEntity): Record<string, unknown> {
  return {
    movement_id: order.id,
    tpp_id: order.tppId,
    livemode: order.livemode,
    debtor_bank: order.debtorBank,
    debtor_iban: order.debtorIban,
    creditor_bank: order.creditorBank,
    creditor_iban: order.creditorIban,
    amount: order.amount.toString(),
    currency: order.currency,
    description: order.description,
    request_id: order.requestId,
  };
}

function recordOrderEvent(em: EntityManager, kind: PaymentOrderEventKind, order: PaymentOrderEntity, now: Date): void {
  recordEvent(
    em,
    {
      kind,
      aggregateType: PAYMENT_ORDER_AGGREGATE,
      aggregateId: order.id,
      audience: order.tppId,
      data: paymentOrderEventData(order),
    },
    now,
  );
}

/** movement.requested in the caller's transaction (the move's, or the sweeper's asking again). */
export function requestMovement(em: EntityManager, order: PaymentOrderEntity, now: Date): void {
  recordEvent(
    em,
    {
      kind: MOVEMENT_REQUESTED,
      aggregateType: MOVEMENT_AGGREGATE,
      aggregateId: order.id,
      audience: null,
      data: movementRequestData(order),
    },
    now,
  );
}

/** What the TPP's request fixed about a new order (the rest is the creation move's). */
export type NewPaymentOrder = Pick<
  PaymentOrderEntity,
  | 'id'
  | 'tppId'
  | 'consentId'
  | 'livemode'
  | 'sourceAccountId'
  | 'debtorIban'
  | 'debtorBank'
  | 'destinationType'
  | 'creditorIban'
  | 'creditorBank'
  | 'amount'
  | 'currency'
  | 'description'
  | 'scaUrl'
  | 'requestId'
>;

/** The creation move in the caller's transaction: PROCESSING (and movement.requested) or PENDING_SCA. */
export function createPaymentOrder(
  tx: EntityManager,
  fields: NewPaymentOrder,
  trigger: 'created_exempt' | 'created_sca_required',
  now: Date,
): PaymentOrderEntity {
  const move = orderTransitionFor(null, trigger)!;
  const order = tx.create(PaymentOrderEntity, {
    ...fields,
    status: move.to,
    failureCode: null,
    failureDetail: null,
    settlementType: null,
    movementRequestedAt: move.requestsMovement ? now : null,
    scaOtpFailures: 0,
    scaChecksInFlight: 0,
    processingAt: move.to === 'PROCESSING' ? now : null,
    createdAt: now,
    updatedAt: now,
  });
  recordOrderEvent(tx, move.event, order, now);
  if (move.requestsMovement) requestMovement(tx, order, now);
  return order;
}

/** Columns a move may set besides status and its timestamp. */
export type OrderMoveChanges = Partial<
  Pick<PaymentOrderEntity, 'failureCode' | 'failureDetail' | 'settlementType' | 'requestId' | 'scaAuthorisationHash'>
>;

/**
 * Makes one move of the transition table inside the caller's transaction: a conditional UPDATE
 * on the expected status, so of two racing writers (two consumers of one outcome, the sweeper
 * and a late answer) exactly one wins, plus the move's events. False when the order was no
 * longer in that status; throws when the table has no such move. `order` must be untracked
 * (loadPaymentOrder): it is updated in place.
 */
export async function movePaymentOrder(
  em: EntityManager,
  order: PaymentOrderEntity,
  trigger: PaymentOrderTrigger,
  now: Date,
  changes: OrderMoveChanges = {},
  /** Further conditions of the move, checked by the same UPDATE (sca_expired: scaExpiryDue). */
  guard: FilterQuery<PaymentOrderEntity> = {},
): Promise<boolean> {
  const move = orderTransitionFor(order.status, trigger);
  if (!move) throw orderRefusal(order.id, order.status, trigger);
  const update = {
    ...changes,
    status: move.to,
    updatedAt: now,
    [ORDER_REACHED_AT[move.to]]: now,
    ...(move.requestsMovement ? { movementRequestedAt: now } : {}),
  };
  const count = await em.nativeUpdate(
    PaymentOrderEntity,
    { ...(guard as object), id: order.id, status: order.status },
    update,
  );
  if (count === 0) return false;
  Object.assign(order, update);
  recordOrderEvent(em, move.event, order, now);
  if (move.requestsMovement) requestMovement(em, order, now);
  return true;
}

/**
 * An order left PROCESSING without an answer from payments: movement.requested again with the
 * same id (payments executes an id once), and the time of asking, in one transaction. False when
 * the order moved meanwhile.
 */
export async function requestMovementAgain(em: EntityManager, order: PaymentOrderEntity, now: Date): Promise<boolean> {
  const count = await em.nativeUpdate(
    PaymentOrderEntity,
    { id: order.id, status: 'PROCESSING', movementRequestedAt: order.movementRequestedAt },
    { movementRequestedAt: now },
  );
  if (count === 0) return false;
  requestMovement(em, order, now);
  return true;
}

/**
 * Counts a wrong one-time password given at the SCA page of a PENDING_SCA order: one atomic
 * increment (raw SQL: two concurrent wrong OTPs must both count), returning the new count; null
 * when the order is no longer PENDING_SCA.
 */
export async function countScaOtpFailure(tx: EntityManager, orderId: string, now: Date): Promise<number | null> {
  const rows: Array<{ sca_otp_failures: number }> = await tx.execute(
    `update "open_banking"."payment_orders" set "sca_otp_failures" = "sca_otp_failures" + 1, "updated_at" = ? where "id" = ? and "status" = 'PENDING_SCA' returning "sca_otp_failures"`,
    [now, orderId],
  );
  return rows.length === 0 ? null : Number(rows[0]!.sca_otp_failures);
}

/**
 * The guard of `sca_expired` (payment-order.transitions.ts): a PENDING_SCA order whose SCA
 * deadline (created_at + ttl) passed more than `marginMs` ago, with no OTP check under way that
 * arrived in time, unless the latest one arrived more than `graceMs` ago (its process died
 * without saying). The deadline is the customer's: an authorisation that arrived before it is
 * never failed because the bank, or the machine, was slow to check it.
 */
export function scaExpiryDue(
  now: Date,
  ttlMs: number,
  graceMs: number,
  marginMs: number,
): FilterQuery<PaymentOrderEntity> {
  return {
    status: 'PENDING_SCA',
    createdAt: { $lte: new Date(now.getTime() - ttlMs - marginMs) },
    $or: [{ scaChecksInFlight: { $lte: 0 } }, { scaCheckArrivedAt: { $lte: new Date(now.getTime() - graceMs) } }],
  };
}

/**
 * An OTP given at the SCA page arrived at `arrivedAt`, before the order's SCA deadline: counted as
 * a check under way (one atomic statement, taken before the bank is asked), so the expiry cannot
 * fail the order while the bank checks it. False when the order is no longer PENDING_SCA or the
 * OTP arrived after the deadline.
 */
export async function startScaCheck(
  em: EntityManager,
  orderId: string,
  arrivedAt: Date,
  ttlMs: number,
): Promise<boolean> {
  const rows: unknown[] = await em.execute(
    `update "open_banking"."payment_orders" set "sca_checks_in_flight" = "sca_checks_in_flight" + 1, "sca_check_arrived_at" = greatest(coalesce("sca_check_arrived_at", ?), ?) where "id" = ? and "status" = 'PENDING_SCA' and "created_at" > ? returning "id"`,
    [arrivedAt, arrivedAt, orderId, new Date(arrivedAt.getTime() - ttlMs)],
  );
  return rows.length > 0;
}

/** The bank's check of an OTP counted by startScaCheck ended without passing SCA (refused, or no answer). */
export async function endScaCheck(em: EntityManager, orderId: string): Promise<void> {
  await em.execute(
    `update "open_banking"."payment_orders" set "sca_checks_in_flight" = greatest("sca_checks_in_flight" - 1, 0) where "id" = ? and "status" = 'PENDING_SCA'`,
    [orderId],
  );
}

/** Loads an order as a plain, untracked object (what movePaymentOrder updates in place). */
export function loadPaymentOrder(em: EntityManager, id: string): Promise<PaymentOrderEntity | null> {
  return em.findOne(PaymentOrderEntity, { id }, { disableIdentityMap: true });
}
