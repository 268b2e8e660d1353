import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import type { Movement } from '../movement/movement';
import { executions } from './execution.repository';
import { CONFIRMABLE_STEPS } from './step-table';

/**
 * Where a movement's rail credit stands, for the creditor bank's credit-confirmed callback:
 * - awaited: sent or being sent, its confirmation is what completes the movement
 * - completed_on_evidence: the engine completed it on the evidence of the booked credit because no
 *   confirmation came in time (RAIL_CONFIRM_GIVE_UP_SECONDS); a confirmation now is the late one
 * - not_awaited: nothing to confirm (not a rail credit, not sent yet, or already confirmed)
 */
export type RailCredit =
  { state: 'awaited'; creditBookedAt: Date | null } | { state: 'completed_on_evidence' } | { state: 'not_awaited' };

export async function railCreditOf(em: EntityManager, movement: Movement): Promise<RailCredit> {
  const execution = await executions.find(em.fork(), movement.id);
  if (!execution) return { state: 'not_awaited' };
  const evidenced = movement.status === 'COMPLETED' && movement.settlementType === 'rail' && execution.step === 'done';
  if (evidenced && execution.confirmedAt === null && execution.creditBookedAt !== null)
    return { state: 'completed_on_evidence' };
  if (CONFIRMABLE_STEPS.includes(execution.step)) return { state: 'awaited', creditBookedAt: execution.creditBookedAt };
  return { state: 'not_awaited' };
}

/**
 * The creditor bank confirmed the rail credit: the execution ends (the callback may overtake the
 * engine's own record of the credit: the confirmation proves it was booked). A part (`step`) of
 * the caller's OneStatement, written only if part `when` changed a row.
 */
export function confirmRailCreditIn(
  statement: OneStatement,
  movementId: string,
  creditBookedAt: Date,
  rrn: string,
  now: Date,
  when: string,
): void {
  executions.confirmCreditIn(statement, movementId, [...CONFIRMABLE_STEPS], creditBookedAt, rrn, now, when);
}

/** A confirmation arriving after the movement completed on evidence: its RRN is kept. */
export function keepLateRailConfirmation(
  tx: EntityManager,
  movementId: string,
  rrn: string,
  now: Date,
): Promise<boolean> {
  return executions.keepLateConfirmation(tx, movementId, rrn, now);
}
