import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { untracked, type OneStatement } from '@gateway/db';
import type { FirstEvent } from '@gateway/events';
import type { MetadataPatch } from '../metadata/metadata.rules';
import { mergeMetadata } from '../metadata/metadata.sql';
import { PaymentSessionEntity } from './session.entity';
import { recordSessionEvent, recordSessionEventIn, recordSessionFirstEventIn } from './session.events';
import { REACHED_AT, refusal, transitionFor, type SessionTrigger } from './session.transitions';

/*
 * The one writer of payments.payment_sessions (CONVENTIONS "Data": one owner per table): every
 * change of a session is a move of the transition table (creation included) and writes its
 * outbox event in the same transaction; the wrong-OTP counter, the OTP checks under way
 * (openCheckoutCheck), the amount refunded (reserveRefundIn, releaseRefundIn) and the merchant's
 * metadata (updateSessionMetadata) are the columns that change without a move. Other folders read sessions
 * freely and change them only through here.
 */

/** What the merchant's request fixed about a new session (the rest is the 'created' move's). */
export type NewSession = Pick<
  PaymentSessionEntity,
  | 'id'
  | 'merchantId'
  | 'livemode'
  | 'amount'
  | 'currency'
  | 'destinationType'
  | 'destinationValue'
  | 'creditorIban'
  | 'creditorBank'
  | 'description'
  | 'reference'
  | 'metadata'
  | 'redirectUrl'
  | 'webhookUrl'
  | 'checkoutUrl'
  | 'expiresAt'
>;

/** A new PENDING session as the 'created' move makes it, not yet written (createSessionIn writes it). */
export function newSession(fields: NewSession, now: Date): PaymentSessionEntity {
  const move = transitionFor(null, 'created')!;
  return Object.assign(new PaymentSessionEntity(), fields, {
    status: move.to,
    otpFailures: 0,
    checkoutChecksInFlight: 0,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * The 'created' move of `session` (from newSession) as parts of the caller's OneStatement
 * (`session` and `session_event`): the same row and event as createSession, one statement
 * instead of BEGIN, two INSERTs and COMMIT. Written only if part `when` changed a row, when given.
 * Answers the session's first event, for the caller to publish once the statement ran.
 */
export function createSessionIn(
  statement: OneStatement,
  session: PaymentSessionEntity,
  now: Date,
  when?: string,
): FirstEvent {
  const move = transitionFor(null, 'created')!;
  statement.insert('session', PaymentSessionEntity, { ...session }, when);
  return recordSessionFirstEventIn(statement, 'session_event', move.event, session, now, when ? 'session' : undefined);
}

/**
 * Counts one wrong one-time password of a PENDING session and answers the new count, or null
 * when the session is no longer PENDING. Raw SQL: the increment must be atomic and answer its
 * result in one statement (`returning`), so concurrent wrong OTPs each count; nativeUpdate
 * answers only how many rows it changed.
 */
export async function countOtpFailure(tx: EntityManager, sessionId: string, now: Date): Promise<number | null> {
  const rows: Array<{ otp_failures: number }> = await tx.execute(
    `update "payments"."payment_sessions" set "otp_failures" = "otp_failures" + 1, "updated_at" = ? where "id" = ? and "status" = 'PENDING' returning "otp_failures"`,
    [now, sessionId],
  );
  return rows.length === 0 ? null : Number(rows[0]!.otp_failures);
}

/**
 * How long an OTP check that arrived before the session's TTL ran out keeps the session from
 * expiring when its process never says how it ended (it died). Longer than any authorization can
 * take: the registry's calls and the bank's OTP check (the engine's core budget), under the
 * router's 15 s per subgraph call.
 */
export const CHECKOUT_CHECK_GRACE_MS = 60_000;
/**
 * The expiry waits this long past expires_at: an authorization that arrived just before it has
 * time to record its OTP check (one statement) before an expiry could look.
 */
export const SESSION_EXPIRY_MARGIN_MS = 1_000;

/**
 * The guard of `ttl_elapsed` (session.transitions.ts): a PENDING session whose expires_at passed
 * more than `marginMs` ago, with no OTP check under way that arrived in time, unless the latest
 * one arrived more than `graceMs` ago (its process died without saying). The TTL is the payer's:
 * an authorization that arrived before it is never expired because the bank, or the machine, was
 * slow to check it.
 */
export function sessionExpiryDue(
  now: Date,
  graceMs = CHECKOUT_CHECK_GRACE_MS,
  marginMs = SESSION_EXPIRY_MARGIN_MS,
): FilterQuery<PaymentSessionEntity> {
  return {
    status: 'PENDING',
    expiresAt: { $lte: new Date(now.getTime() - marginMs) },
    $or: [
      { checkoutChecksInFlight: { $lte: 0 } },
      { checkoutCheckArrivedAt: { $lte: new Date(now.getTime() - graceMs) } },
    ],
  };
}

/** What the checkout's authorization reads and starts in one statement (openCheckoutCheck). */
export interface OpenedCheckout {
  /** The session as it was before the check was counted: plain, untracked (what moveSession updates in place). */
  session: PaymentSessionEntity;
  /** Its merchant's status (assertPayable: a SUSPENDED one is refused); null when the merchant row is gone. */
  merchantStatus: string | null;
  /** Whether an OTP check was counted: false when the session is not PENDING, arrived late or its merchant is SUSPENDED. */
  checking: boolean;
}

/**
 * An authorization of the checkout page arrived at `arrivedAt`: the session, its merchant's
 * status and, when the session is PENDING, the authorization arrived before expires_at and the
 * merchant is not SUSPENDED, an OTP check counted as under way (taken before the payer's bank is
 * asked), so the expiry cannot expire the session while the bank checks it. One statement (issue
 * 32: statements per payment; it was a read of each and an UPDATE): the session comes back as
 * the same snapshot saw it, before the count. Null: no such session. The caller ends the check
 * (endCheckoutCheck) when it stops before the claim.
 */
export async function openCheckoutCheck(
  em: EntityManager,
  sessionId: string,
  arrivedAt: Date,
): Promise<OpenedCheckout | null> {
  const [row] = await em.execute<Array<Record<string, unknown>>>(
    `with started as (
       update "payments"."payment_sessions" s set "checkout_checks_in_flight" = s."checkout_checks_in_flight" + 1,
         "checkout_check_arrived_at" = greatest(coalesce(s."checkout_check_arrived_at", ?), ?)
       where s."id" = ? and s."status" = 'PENDING' and s."expires_at" > ?
         and not exists (select 1 from "payments"."merchants" m where m."id" = s."merchant_id" and m."status" = 'SUSPENDED')
       returning s."id")
     select s.*, m."status" as "opened_merchant_status", exists (select 1 from started) as "opened_checking"
     from "payments"."payment_sessions" s left join "payments"."merchants" m on m."id" = s."merchant_id"
     where s."id" = ?`,
    [arrivedAt, arrivedAt, sessionId, arrivedAt, sessionId],
  );
  if (!row) return null;
  const { opened_merchant_status: merchantStatus, opened_checking: checking, ...columns } = row;
  // Untracked, as loadSession's: moveSession updates it in place, no flush writes it.
  const session = untracked(em, PaymentSessionEntity, columns);
  return { session, merchantStatus: (merchantStatus as string | null) ?? null, checking: checking === true };
}

/** The bank's check of an OTP counted by openCheckoutCheck ended without the session being claimed (refused, no answer, another refusal). */
export async function endCheckoutCheck(em: EntityManager, sessionId: string): Promise<void> {
  await em.execute(
    `update "payments"."payment_sessions" set "checkout_checks_in_flight" = greatest("checkout_checks_in_flight" - 1, 0) where "id" = ? and "status" = 'PENDING'`,
    [sessionId],
  );
}

/** Columns a move may set besides status and its timestamp. */
export type MoveChanges = Partial<
  Pick<PaymentSessionEntity, 'debtorBank' | 'settlementType' | 'failureCode' | 'failureDetail'>
>;

/** A move of the table from the session's status: its row of the table and the columns it sets; throws when there is none. */
function planMove(session: PaymentSessionEntity, trigger: SessionTrigger, now: Date, changes: MoveChanges) {
  const move = transitionFor(session.status, trigger);
  if (!move) throw refusal(session.id, session.status, trigger);
  return { move, update: { ...changes, status: move.to, updatedAt: now, [REACHED_AT[move.to]]: now } };
}

/**
 * Makes one move of the transition table inside the caller's transaction: a conditional UPDATE
 * (`where id = ? and status = <from>`), so of two processes racing for the same move exactly
 * one wins, plus the move's outbox event. Returns false when the session was no longer in the
 * expected status (someone else moved it first); throws when the table has no such move.
 * `session` must not be a managed entity (load it with disableIdentityMap): it is updated in place.
 */
export async function moveSession(
  em: EntityManager,
  session: PaymentSessionEntity,
  trigger: SessionTrigger,
  now: Date,
  changes: MoveChanges = {},
  condition: FilterQuery<PaymentSessionEntity> = {},
): Promise<boolean> {
  const { move, update } = planMove(session, trigger, now, changes);
  const count = await em.nativeUpdate(
    PaymentSessionEntity,
    { ...(condition as object), id: session.id, status: session.status },
    update,
  );
  if (count === 0) return false;
  Object.assign(session, update);
  recordSessionEvent(em, move.event, session, now);
  return true;
}

/**
 * moveSession as parts of the caller's OneStatement: the conditional UPDATE (part `name`) and its
 * event (`${name}_event`, written only if the UPDATE changed the row), the UPDATE itself only if
 * part `when` changed a row, when given. Answers the changes to
 * apply to `session` once the statement ran and part `name` changed a row; throws when the table
 * has no such move.
 */
export function moveSessionIn(
  statement: OneStatement,
  name: string,
  session: PaymentSessionEntity,
  trigger: SessionTrigger,
  now: Date,
  changes: MoveChanges = {},
  condition: FilterQuery<PaymentSessionEntity> = {},
  when?: string,
): Partial<PaymentSessionEntity> {
  const { move, update } = planMove(session, trigger, now, changes);
  statement.update(
    name,
    PaymentSessionEntity,
    { ...(condition as object), id: session.id, status: session.status },
    update,
    when,
  );
  // The event's payload reads the session's fields as the move leaves them: a plain copy, not an
  // entity (the ORM's setters define each property anew on every new instance: 20 µs a move).
  const moved = { ...session, ...update } as PaymentSessionEntity;
  recordSessionEventIn(statement, `${name}_event`, move.event, moved, now, name);
  return update;
}

/**
 * Takes `amount` of what is left to refund of a COMPLETED session of `merchantId`, as part `name`
 * of the refund's OneStatement (the refund and its execution are written only if it changed the
 * row). One conditional UPDATE: concurrent refunds of one session queue on its row, and each
 * re-checks what is left once the one before it committed, so together they never exceed the
 * session amount (a check constraint says so once more). Raw SQL: the condition compares two
 * columns of the row.
 */
export function reserveRefundIn(
  statement: OneStatement,
  name: string,
  refund: { sessionId: string; merchantId: string; amount: bigint },
  now: Date,
): void {
  statement.sql(
    name,
    `update "payments"."payment_sessions" set "amount_refunded" = "amount_refunded" + ?, "updated_at" = ?
     where "id" = ? and "merchant_id" = ? and "status" = 'COMPLETED' and "amount" - "amount_refunded" >= ? returning 1`,
    [refund.amount.toString(), now, refund.sessionId, refund.merchantId, refund.amount.toString()],
  );
}

/**
 * A FAILED refund gives its amount back to what is left to refund, as part `name` of the engine's
 * OneStatement, written only if part `when` (the refund's FAILED move) changed a row.
 */
export function releaseRefundIn(
  statement: OneStatement,
  name: string,
  refund: { sessionId: string; amount: bigint },
  now: Date,
  when: string,
): void {
  statement.sql(
    name,
    `update "payments"."payment_sessions" set "amount_refunded" = "amount_refunded" - ?, "updated_at" = ?
     where "id" = ? and "amount_refunded" >= ? and ${statement.changed(when)} returning 1`,
    [refund.amount.toString(), now, refund.sessionId, refund.amount.toString()],
  );
}

/**
 * Merges a PATCH into the metadata of a session of `merchantId`: false when there is no such
 * session or the merge would pass 20 keys (nothing changes; the caller tells which). Raw SQL: the
 * merge and its limit are computed on the row in the statement, so concurrent PATCHes of different
 * keys all keep theirs. No event: metadata is no move, and the next event carries it.
 */
export const updateSessionMetadata = (
  em: EntityManager,
  merchantId: string,
  id: string,
  patch: MetadataPatch,
  now: Date,
): Promise<boolean> => mergeMetadata(em, 'update "payments"."payment_sessions"', { id, merchantId }, patch, now);

/** Loads a session as a plain, untracked object (what moveSession updates in place). */
export function loadSession(em: EntityManager, id: string): Promise<PaymentSessionEntity | null> {
  return em.findOne(PaymentSessionEntity, { id }, { disableIdentityMap: true });
}
