import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { PaymentSessionEntity } from './session.entity';
import { recordSessionEvent } from './session.events';
import { REACHED_AT, refusal, transitionFor, type SessionTrigger } from './session.transitions';

/** Columns a move may set besides status and its timestamp. */
export type MoveChanges = Partial<Pick<PaymentSessionEntity, 'debtorBank' | 'settlementType' | 'failureCode' | 'failureDetail'>>;

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
  const move = transitionFor(session.status, trigger);
  if (!move) throw refusal(session.id, session.status, trigger);
  const update = { ...changes, status: move.to, updatedAt: now, [REACHED_AT[move.to]]: now };
  const count = await em.nativeUpdate(PaymentSessionEntity, { ...(condition as object), id: session.id, status: session.status }, update);
  if (count === 0) return false;
  Object.assign(session, update);
  recordSessionEvent(em, move.event, session, now);
  return true;
}

/** Loads a session as a plain, untracked object (what moveSession updates in place). */
export function loadSession(em: EntityManager, id: string): Promise<PaymentSessionEntity | null> {
  return em.findOne(PaymentSessionEntity, { id }, { disableIdentityMap: true });
}
