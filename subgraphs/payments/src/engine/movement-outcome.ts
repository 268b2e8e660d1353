import { isErrorCode, type ErrorCode } from '@gateway/kernel';
import type { Movement } from '../movement/movement';
import type { PaymentExecutionEntity } from './execution.entity';
import { STEP_TABLE } from './step-table';

/**
 * What the engine tells whoever started a movement, once it ran as far as it could while they
 * waited: no caller reads execution rows or names the engine's steps.
 * - completed: the money is where it should be
 * - failed: the payer is told now; `code` is the answer (the movement may still be giving money
 *   back, which ends it FAILED with that code)
 * - in_flight: still moving (a rail credit awaiting its confirmation, a core slower than the wait,
 *   a step that will be retried); the movement's own status says where it is
 */
export type MovementOutcome<M extends Movement = Movement> = { movement: M } & (
  { state: 'completed' } | { state: 'in_flight' } | { state: 'failed'; code: ErrorCode; detail: string | null }
);

export function movementOutcome<M extends Movement>(
  movement: M,
  execution: PaymentExecutionEntity | null,
): MovementOutcome<M> {
  if (movement.failureCode !== null) return failed(movement, movement.failureCode, movement.failureDetail);
  // Abandoned, money on its way back: the payer is told now, the movement FAILS once it is back.
  if (execution?.pendingFailureCode && STEP_TABLE[execution.step].givesBack)
    return failed(movement, execution.pendingFailureCode, execution.pendingFailureDetail);
  return { movement, state: execution?.step === 'done' ? 'completed' : 'in_flight' };
}

function failed<M extends Movement>(movement: M, code: string, detail: string | null): MovementOutcome<M> {
  return { movement, state: 'failed', code: isErrorCode(code) ? code : 'CBS_ERROR', detail };
}
