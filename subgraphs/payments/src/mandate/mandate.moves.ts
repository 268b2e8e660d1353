import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { recordEvent } from '@gateway/events';
import type { MetadataPatch } from '../metadata/metadata.rules';
import { mergeMetadata } from '../metadata/metadata.sql';
import { establishOutcomeIn, OUTCOME_UNKNOWN } from '../movement/held-outcome';
import { declareMovementKind } from '../movement/movement.kind';
import { MandateChargeEntity, MandateEntity } from './mandate.entity';
import {
  CHARGE_TRANSITIONS,
  chargeTransitionFor,
  MANDATE_REACHED_AT,
  mandateRefusal,
  mandateTransitionFor,
  publicChargeStatus,
  type ChargeEventKind,
  type ChargeTrigger,
  type MandateEventKind,
  type MandateTrigger,
} from './mandate.transitions';

/*
 * The one writer of payments.mandates and payments.mandate_charges (CONVENTIONS "Data": one
 * owner per table): every change is a move of a transition table, with its outbox event in the
 * same transaction; the wrong-OTP counter, the test clock, the merchant's metadata and a charge's
 * amount refunded (reserveChargeRefundIn, releaseChargeRefundIn) are the columns that change
 * without a move. Events of a mandate and of its charges share the mandate as aggregate, so the
 * envelope's sequence orders all of them for the merchant.
 */

export const MANDATE_AGGREGATE = 'mandate';

function mandateEventData(mandate: MandateEntity): Record<string, unknown> {
  return {
    mandate_id: mandate.id,
    livemode: mandate.livemode,
    status: mandate.status,
    // The mandate's own status on every event of its aggregate (mandateUpdated follows this one).
    mandate_status: mandate.status,
    merchant_id: mandate.merchantId,
    amount: Number(mandate.amount),
    currency: mandate.currency,
    interval: mandate.interval,
    revoked_by: mandate.revokedBy,
    metadata: mandate.metadata ?? {},
  };
}

function chargeEventData(charge: MandateChargeEntity): Record<string, unknown> {
  return {
    charge_id: charge.id,
    livemode: charge.livemode,
    mandate_id: charge.mandateId,
    status: publicChargeStatus(charge.status),
    // The same, under a name that cannot be read as the mandate's status (the aggregate is the mandate).
    charge_status: publicChargeStatus(charge.status),
    amount: Number(charge.amount),
    currency: charge.currency,
    reference: charge.reference,
    metadata: charge.metadata ?? {},
    merchant_id: charge.merchantId,
    settlement_type: charge.settlementType,
    creditor_bank: charge.creditorBank,
    ...(charge.status === 'FAILED' ? { failure_code: charge.failureCode } : {}),
  };
}

function recordMandateEvent(
  em: EntityManager,
  kind: MandateEventKind | ChargeEventKind,
  aggregateId: string,
  audience: string,
  data: Record<string, unknown>,
  now: Date,
): void {
  recordEvent(em, { kind, aggregateType: MANDATE_AGGREGATE, aggregateId, audience, data }, now);
}

export type NewMandate = Pick<
  MandateEntity,
  | 'id'
  | 'merchantId'
  | 'livemode'
  | 'customerAlias'
  | 'customerIban'
  | 'customerBank'
  | 'customerRef'
  | 'amount'
  | 'currency'
  | 'interval'
  | 'description'
  | 'startDate'
  | 'confirmUrl'
  | 'metadata'
>;

/** The 'created' move in the caller's transaction: a mandate PENDING_CONFIRMATION. */
export function createMandate(tx: EntityManager, fields: NewMandate, now: Date): MandateEntity {
  const move = mandateTransitionFor(null, 'created')!;
  return tx.create(MandateEntity, {
    ...fields,
    status: move.to,
    otpFailures: 0,
    clockOffsetDays: 0,
    createdAt: now,
    updatedAt: now,
  });
}

export type MandateChanges = Partial<
  Pick<MandateEntity, 'confirmationHash' | 'acceptedAt' | 'acceptedIp' | 'acceptedUserAgent' | 'revokedBy'>
>;

/**
 * One move of the mandate table: a conditional UPDATE on the status read (false: someone moved it
 * first), with its event. `mandate` is untracked and updated in place.
 */
export async function moveMandate(
  em: EntityManager,
  mandate: MandateEntity,
  trigger: MandateTrigger,
  now: Date,
  changes: MandateChanges = {},
): Promise<boolean> {
  const move = mandateTransitionFor(mandate.status, trigger);
  if (!move) throw mandateRefusal(mandate.id, mandate.status, trigger);
  const update = { ...changes, status: move.to, updatedAt: now, [MANDATE_REACHED_AT[move.to]]: now };
  const count = await em.nativeUpdate(MandateEntity, { id: mandate.id, status: mandate.status }, update);
  if (count === 0) return false;
  Object.assign(mandate, update);
  if (move.event) recordMandateEvent(em, move.event, mandate.id, mandate.merchantId, mandateEventData(mandate), now);
  return true;
}

/** Counts a wrong OTP of a mandate awaiting confirmation; the new count, or null when it no longer awaits one. */
export async function countMandateOtpFailure(tx: EntityManager, id: string, now: Date): Promise<number | null> {
  const rows: Array<{ otp_failures: number }> = await tx.execute(
    `update "payments"."mandates" set "otp_failures" = "otp_failures" + 1, "updated_at" = ? where "id" = ? and "status" = 'PENDING_CONFIRMATION' returning "otp_failures"`,
    [now, id],
  );
  return rows.length === 0 ? null : Number(rows[0]!.otp_failures);
}

/** Moves a test-mode mandate's clock forward (the service checks the mode). */
export async function advanceMandateClock(em: EntityManager, id: string, days: number, now: Date): Promise<void> {
  await em.execute(
    `update "payments"."mandates" set "clock_offset_days" = "clock_offset_days" + ?, "updated_at" = ? where "id" = ?`,
    [days, now, id],
  );
}

/**
 * Merges a PATCH into a mandate's metadata (of `merchantId`'s): false when there is no such
 * mandate or the merge would pass 20 keys (nothing changes). Raw SQL: merged and limited on the
 * row in the statement, so concurrent PATCHes of different keys all keep theirs. No event.
 */
export const updateMandateMetadata = (
  em: EntityManager,
  merchantId: string,
  id: string,
  patch: MetadataPatch,
  now: Date,
): Promise<boolean> => mergeMetadata(em, 'update "payments"."mandates"', { id, merchantId }, patch, now);

/** The same for a charge of `merchantId`'s (any status: metadata is the merchant's bookkeeping, not the movement). */
export const updateChargeMetadata = (
  em: EntityManager,
  merchantId: string,
  id: string,
  patch: MetadataPatch,
  now: Date,
): Promise<boolean> => mergeMetadata(em, 'update "payments"."mandate_charges"', { id, merchantId }, patch, now);

/**
 * Takes the mandate for a charge, in the charge's transaction: the row is locked and must still be
 * ACTIVE (a cancellation racing with a charge: one of them goes first, the other sees it).
 */
export async function lockActiveMandate(tx: EntityManager, id: string): Promise<boolean> {
  const rows: unknown[] = await tx.execute(
    `select "id" from "payments"."mandates" where "id" = ? and "status" = 'ACTIVE' for update`,
    [id],
  );
  return rows.length > 0;
}

export type NewCharge = Pick<
  MandateChargeEntity,
  | 'id'
  | 'mandateId'
  | 'merchantId'
  | 'livemode'
  | 'amount'
  | 'currency'
  | 'reference'
  | 'periodStart'
  | 'debtorBank'
  | 'debtorIban'
  | 'creditorBank'
  | 'creditorIban'
  | 'settlementType'
  | 'description'
  | 'metadata'
>;

/**
 * The 'created' move of a charge, once per mandate and period, as part `charge` of the caller's
 * statement: it writes no row when the period already has a charge that holds it. A charge holds
 * its period unless it FAILED, and still holds it when it FAILED with CBS_OUTCOME_UNKNOWN: the
 * payer may have been debited, and a second charge could take twice what the customer agreed to
 * for the period, until the engine has the payer's money back (releaseHeldChargeIn).
 * Two guards, both needed: `not exists` reads the period's charges as they are when the
 * statement starts (a charge that turned FAILED with CBS_OUTCOME_UNKNOWN holds it either way),
 * and the partial unique index refuses a live charge that a racing transaction has not committed
 * yet. Raw SQL: "once" is `on conflict do nothing`, which must not abort the statement as a
 * failed insert would; the values are cast, as an INSERT … SELECT does not type them by column.
 */
export function createChargeOnceIn(statement: OneStatement, fields: NewCharge, now: Date): void {
  const move = chargeTransitionFor(null, 'created')!;
  statement.sql(
    'charge',
    `insert into "payments"."mandate_charges" ("id", "mandate_id", "merchant_id", "livemode", "status", "amount", "currency", "reference", "period_start", "debtor_bank", "debtor_iban",
       "creditor_bank", "creditor_iban", "settlement_type", "description", "metadata", "created_at", "updated_at")
     select ?::text, ?::text, ?::text, ?::boolean, ?::text, ?::bigint, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::jsonb, ?::timestamptz, ?::timestamptz
     where not exists (
       select 1 from "payments"."mandate_charges" "held"
       where "held"."mandate_id" = ? and "held"."period_start" = ?
         and ("held"."status" <> 'FAILED' or "held"."failure_code" = '${OUTCOME_UNKNOWN}'))
     on conflict ("mandate_id", "period_start") where "status" <> 'FAILED' do nothing returning 1`,
    [
      fields.id,
      fields.mandateId,
      fields.merchantId,
      fields.livemode,
      move.to,
      fields.amount.toString(),
      fields.currency,
      fields.reference,
      fields.periodStart,
      fields.debtorBank,
      fields.debtorIban,
      fields.creditorBank,
      fields.creditorIban,
      fields.settlementType,
      fields.description,
      JSON.stringify(fields.metadata),
      now,
      now,
      fields.mandateId,
      fields.periodStart,
    ],
  );
}

/**
 * A charge that FAILED with CBS_OUTCOME_UNKNOWN held its period while an operator checked whether
 * the payer was debited (createChargeOnceIn). Once the engine has the payer's money back, the
 * outcome is established (establishOutcomeIn) and the period can be charged again.
 */
export const releaseHeldChargeIn = (
  statement: OneStatement,
  charge: MandateChargeEntity,
  now: Date,
  when: string,
): Partial<MandateChargeEntity> | undefined =>
  establishOutcomeIn(statement, MandateChargeEntity, charge, now, when, HELD_CHARGE_RELEASED);

const HELD_CHARGE_RELEASED =
  "the bank cores' outcome was established after an operator's check: the payer's account was " +
  'not debited or was given the money back, so the period can be charged again';

/**
 * Takes `amount` of what is left to refund of a COMPLETED charge of `merchantId`, as part `name`
 * of the refund's OneStatement (the refund and its execution are written only if it changed the
 * row): as a session's (session.moves.ts reserveRefundIn), concurrent refunds of one charge queue
 * on its row and never exceed its amount (a check constraint says so once more). Raw SQL: the
 * condition compares two columns of the row.
 */
export function reserveChargeRefundIn(
  statement: OneStatement,
  name: string,
  refund: { chargeId: string; merchantId: string; amount: bigint },
  now: Date,
): void {
  statement.sql(
    name,
    `update "payments"."mandate_charges" set "amount_refunded" = "amount_refunded" + ?, "updated_at" = ?
     where "id" = ? and "merchant_id" = ? and "status" = 'COMPLETED' and "amount" - "amount_refunded" >= ? returning 1`,
    [refund.amount.toString(), now, refund.chargeId, refund.merchantId, refund.amount.toString()],
  );
}

/**
 * A FAILED refund of a charge gives its amount back to what is left to refund, as part `name` of
 * the engine's OneStatement, written only if part `when` (the refund's FAILED move) changed a row.
 */
export function releaseChargeRefundIn(
  statement: OneStatement,
  name: string,
  refund: { chargeId: string; amount: bigint },
  now: Date,
  when: string,
): void {
  statement.sql(
    name,
    `update "payments"."mandate_charges" set "amount_refunded" = "amount_refunded" - ?, "updated_at" = ?
     where "id" = ? and "amount_refunded" >= ? and ${statement.changed(when)} returning 1`,
    [refund.amount.toString(), now, refund.chargeId, refund.amount.toString()],
  );
}

export const loadMandate = (em: EntityManager, id: string): Promise<MandateEntity | null> =>
  em.findOne(MandateEntity, { id }, { disableIdentityMap: true });

/**
 * Mandate charges as the engine executes them (movement.kind.ts). The charge row carries
 * everything a Movement is (its creditor fixed at the charge, its debtor the mandate's customer);
 * its events are the mandate's aggregate, so they are ordered with the mandate's own.
 */
export const chargeMovements = declareMovementKind<MandateChargeEntity, ChargeTrigger, ChargeEventKind>({
  noun: 'charge',
  entity: MandateChargeEntity,
  transitions: CHARGE_TRANSITIONS,
  event: (kind, charge) => ({
    kind,
    aggregateType: MANDATE_AGGREGATE,
    aggregateId: charge.mandateId,
    audience: charge.merchantId,
    data: chargeEventData(charge),
  }),
  payerWholeIn: releaseHeldChargeIn,
});

export const loadCharge = (em: EntityManager, id: string): Promise<MandateChargeEntity | null> =>
  chargeMovements.load(em, id);
