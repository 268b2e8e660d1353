import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '@gateway/events';
import { VrpConsentTermsEntity } from './vrp-consent-terms.entity';
import { VrpPaymentEntity } from './vrp-payment.entity';
import {
  VRP_PAYMENT_REACHED_AT,
  vrpPaymentTransitionFor,
  type VrpPaymentEventKind,
  type VrpPaymentTrigger,
} from './vrp-payment.transitions';

/*
 * The one writer of open_banking.vrp_payments (CONVENTIONS "Data"): every change is a move of the
 * transition table, with its vrp_payment.* event for the TPP in the same transaction and, when the
 * payment is accepted, movement.requested for the payments engine (the same request a payment
 * order makes: payments executes ids it has seen once).
 */

export const VRP_PAYMENT_AGGREGATE = 'vrp_payment';
const MOVEMENT_AGGREGATE = 'movement';
const MOVEMENT_REQUESTED = 'movement.requested';

/** The event payload a TPP gets: the payment as GET /ob/vrp-payments/{id} shows it, snake_case. */
export function vrpPaymentEventData(payment: VrpPaymentEntity): Record<string, unknown> {
  return {
    payment_id: payment.id,
    consent_id: payment.consentId,
    livemode: payment.livemode,
    status: payment.status,
    amount: Number(payment.amount),
    currency: payment.currency,
    reference: payment.reference,
    ...(payment.failureCode ? { failure_code: payment.failureCode } : {}),
  };
}

/** movement.requested: what the engine needs to execute the payment (as a payment order's, with the vrp_ id). */
function requestMovement(em: EntityManager, payment: VrpPaymentEntity, now: Date): void {
  recordEvent(
    em,
    {
      kind: MOVEMENT_REQUESTED,
      aggregateType: MOVEMENT_AGGREGATE,
      aggregateId: payment.id,
      audience: null,
      data: {
        movement_id: payment.id,
        tpp_id: payment.tppId,
        livemode: payment.livemode,
        debtor_bank: payment.debtorBank,
        debtor_iban: payment.debtorIban,
        creditor_bank: payment.creditorBank,
        creditor_iban: payment.creditorIban,
        amount: payment.amount.toString(),
        currency: payment.currency,
        description: payment.reference,
        request_id: payment.requestId,
      },
    },
    now,
  );
}

export type NewVrpPayment = Pick<
  VrpPaymentEntity,
  | 'id'
  | 'consentId'
  | 'tppId'
  | 'livemode'
  | 'debtorIban'
  | 'debtorBank'
  | 'creditorIban'
  | 'creditorBank'
  | 'amount'
  | 'currency'
  | 'reference'
  | 'requestId'
>;

/**
 * The 'accepted' move in the caller's transaction, reserving the payment's share of the limits:
 * the consent's version goes from `version` (the one its usage was read at) to the next in one
 * conditional UPDATE, and the payment is written only if it did. Of two payments judged against
 * the same usage, the second finds the version moved and is judged again against the first.
 * Answers null when it lost that race (the caller rolls back and judges again).
 */
export async function acceptVrpPayment(
  tx: EntityManager,
  fields: NewVrpPayment,
  version: number,
  now: Date,
): Promise<VrpPaymentEntity | null> {
  const reserved = await tx.nativeUpdate(
    VrpConsentTermsEntity,
    { consentId: fields.consentId, paymentsAccepted: version },
    { paymentsAccepted: version + 1 },
  );
  if (reserved === 0) return null;
  const move = vrpPaymentTransitionFor(null, 'accepted')!;
  const payment = tx.create(VrpPaymentEntity, {
    ...fields,
    status: move.to,
    failureCode: null,
    failureDetail: null,
    settlementType: null,
    movementRequestedAt: now,
    createdAt: now,
    updatedAt: now,
  });
  requestMovement(tx, payment, now);
  return payment;
}

export type VrpPaymentMoveChanges = Partial<Pick<VrpPaymentEntity, 'failureCode' | 'failureDetail' | 'settlementType'>>;

/**
 * One move of the table in the caller's transaction, conditional on the status read, with its
 * event. False when the payment had moved already (a duplicate answer). `payment` is untracked and
 * updated in place.
 */
export async function moveVrpPayment(
  tx: EntityManager,
  payment: VrpPaymentEntity,
  trigger: VrpPaymentTrigger,
  now: Date,
  changes: VrpPaymentMoveChanges = {},
): Promise<boolean> {
  const move = vrpPaymentTransitionFor(payment.status, trigger);
  if (!move) return false;
  const update = { ...changes, status: move.to, updatedAt: now, [VRP_PAYMENT_REACHED_AT[move.to]]: now };
  const count = await tx.nativeUpdate(VrpPaymentEntity, { id: payment.id, status: payment.status }, update);
  if (count === 0) return false;
  Object.assign(payment, update);
  if (move.event) recordVrpPaymentEvent(tx, move.event, payment, now);
  return true;
}

function recordVrpPaymentEvent(tx: EntityManager, kind: VrpPaymentEventKind, payment: VrpPaymentEntity, now: Date) {
  recordEvent(
    tx,
    {
      kind,
      aggregateType: VRP_PAYMENT_AGGREGATE,
      aggregateId: payment.id,
      audience: payment.tppId,
      data: vrpPaymentEventData(payment),
    },
    now,
  );
}

/** The sweeper's question again for a payment the engine has not answered: the same request, never a new movement. */
export async function requestVrpMovementAgain(
  tx: EntityManager,
  payment: VrpPaymentEntity,
  now: Date,
): Promise<boolean> {
  const count = await tx.nativeUpdate(
    VrpPaymentEntity,
    { id: payment.id, status: 'PROCESSING', movementRequestedAt: payment.movementRequestedAt },
    { movementRequestedAt: now },
  );
  if (count === 0) return false;
  requestMovement(tx, payment, now);
  return true;
}

export function loadVrpPayment(em: EntityManager, id: string): Promise<VrpPaymentEntity | null> {
  return em.findOne(VrpPaymentEntity, { id }, { disableIdentityMap: true });
}
