import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import type { OneStatement } from '@gateway/db';
import type { Movement } from './movement';

/**
 * The failure code of a movement whose core outcome the engine could not establish in time: the
 * merchant was told FAILED, and an operator checks whether the payer's money moved. A refund keeps
 * its amount taken meanwhile, a mandate charge its period.
 */
export const OUTCOME_UNKNOWN = 'CBS_OUTCOME_UNKNOWN';

/** A movement held at an unknown outcome: FAILED for its requester, its money not yet settled. */
export const isHeld = (movement: Pick<Movement, 'status' | 'failureCode'>): boolean =>
  movement.status === 'FAILED' && movement.failureCode === OUTCOME_UNKNOWN;

/**
 * A movement FAILED with CBS_OUTCOME_UNKNOWN whose payer the engine has since found whole (the
 * reversal an operator asked for is booked, or the debit turns out never booked): its outcome is
 * established, so it says so (CBS_ERROR: the cores did not carry it out, with `detail`), and what
 * it held is free. Part `established` of the engine's statement, written only with its record
 * (`when`) and only while the movement is still FAILED with the unknown outcome: once. Answers the
 * changes, or undefined for any other movement. No event: the failed event was the merchant's
 * answer; the object as read shows the change.
 */
export function establishOutcomeIn<M extends Movement & { updatedAt: Date }>(
  statement: OneStatement,
  entity: EntityClass<M>,
  movement: M,
  now: Date,
  when: string,
  detail: string,
): Partial<M> | undefined {
  if (movement.status !== 'FAILED' || movement.failureCode !== OUTCOME_UNKNOWN) return undefined;
  const established: Partial<Movement & { updatedAt: Date }> = {
    failureCode: 'CBS_ERROR',
    failureDetail: detail,
    updatedAt: now,
  };
  const update = established as Partial<M>;
  const where = { id: movement.id, status: 'FAILED', failureCode: OUTCOME_UNKNOWN } as FilterQuery<M>;
  statement.update('established', entity, where, update, when);
  return update;
}
