import { transitionLookup, type Transition } from '@gateway/kernel';
import { OUTCOME_UNKNOWN } from '../movement/held-outcome';
import type { EngineTrigger } from '../movement/movement';
import {
  engineMovementTransitions,
  FINAL_MOVEMENT_STATUSES,
  MOVEMENT_REACHED_AT,
  MOVEMENT_STATUSES,
  publicMovementStatus,
  type MovementStatus,
} from '../movement/movement.transitions';

export type RefundStatus = MovementStatus;
export const REFUND_STATUSES = MOVEMENT_STATUSES;
export const FINAL_REFUND_STATUSES = FINAL_MOVEMENT_STATUSES;
export const REFUND_REACHED_AT = MOVEMENT_REACHED_AT;

/**
 * An operator's finding on a refund held at CBS_OUTCOME_UNKNOWN (HeldFinding): never the
 * engine's, which leaves a FAILED refund as it is.
 */
export type RefundFindingTrigger = 'found_credited' | 'found_not_credited';

export type RefundTrigger = 'created' | EngineTrigger | RefundFindingTrigger;

/** Events to the merchant (audience: its id), on the refund's own aggregate. */
export type RefundEventKind = 'refund.completed' | 'refund.failed';

export type RefundTransition = Transition<RefundStatus, RefundTrigger, RefundEventKind | null>;

/**
 * The one table of a refund's moves: the engine's (engineMovementTransitions), with a session's
 * guarantees. Same bank: COMPLETED when the payer's account is credited. Cross bank: the rail's
 * wait (SETTLEMENT_PENDING, shown as PROCESSING) until the payer's bank confirms the credit.
 * FAILED when the merchant's bank refuses the debit, or the payer's bank the credit (the debit is
 * given back to the merchant first).
 *
 * A refund FAILED with CBS_OUTCOME_UNKNOWN is final for the engine but not yet for the money (its
 * amount stays taken): an operator who has checked the cores settles it (issue 46), COMPLETED
 * when the payer was credited, FAILED for good when not (its amount freed); either way the
 * merchant hears it (a second event, the final one). These are the only moves out of FAILED, and
 * only for a held refund (refund.moves.ts settleHeldRefundIn).
 */
export const REFUND_TRANSITIONS: readonly RefundTransition[] = [
  ...engineMovementTransitions('created', { completed: 'refund.completed', failed: 'refund.failed' }),
  { from: 'FAILED', trigger: 'found_credited', to: 'COMPLETED', event: 'refund.completed' },
  { from: 'FAILED', trigger: 'found_not_credited', to: 'FAILED', event: 'refund.failed' },
];

export const refundTransitionFor = transitionLookup(REFUND_TRANSITIONS);

/** What the merchant sees (contract: PROCESSING, COMPLETED, FAILED): the rail's wait is part of PROCESSING. */
export const publicRefundStatus = publicMovementStatus;

/**
 * Whether a refund's FAILED move gives its amount back to the session (what is left to refund).
 * Not when the engine handed the refund to an operator because a core's outcome could not be
 * established (CBS_OUTCOME_UNKNOWN): the payer may have been credited, so the amount stays taken
 * until an operator has checked; a second refund of it could pay the payer twice. The engine frees
 * it once the merchant's money is back (releaseHeldRefundIn, refund.moves.ts).
 */
export const failureFreesAmount = (failureCode: string | null): boolean => failureCode !== OUTCOME_UNKNOWN;
