import type { Movement } from '../movement/movement';
import type { PaymentExecutionEntity } from './execution.entity';
import { movementOutcome } from './movement-outcome';

const movement = (changes: Partial<Movement> = {}): Movement =>
  ({ id: 'ops_1', status: 'PROCESSING', failureCode: null, failureDetail: null, ...changes }) as Movement;
const execution = (changes: Partial<PaymentExecutionEntity>): PaymentExecutionEntity =>
  ({ pendingFailureCode: null, pendingFailureDetail: null, ...changes }) as PaymentExecutionEntity;

describe('what the engine tells whoever started a movement', () => {
  it('completed once nothing is left to do', () => {
    expect(movementOutcome(movement({ status: 'COMPLETED' }), execution({ step: 'done' })).state).toBe('completed');
  });

  it('in flight while a step is still to run, a confirmation awaited, or the row not read', () => {
    expect(movementOutcome(movement(), execution({ step: 'credit' })).state).toBe('in_flight');
    expect(movementOutcome(movement({ status: 'SETTLEMENT_PENDING' }), execution({ step: 'confirm' })).state).toBe(
      'in_flight',
    );
    expect(movementOutcome(movement(), null).state).toBe('in_flight');
  });

  it("failed with the movement's code, an unknown code as CBS_ERROR", () => {
    expect(
      movementOutcome(
        movement({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', failureDetail: 'no money' }),
        execution({ step: 'done' }),
      ),
    ).toMatchObject({
      state: 'failed',
      code: 'INSUFFICIENT_FUNDS',
      detail: 'no money',
    });
    expect(
      movementOutcome(movement({ status: 'FAILED', failureCode: 'SOMETHING_ELSE' }), execution({ step: 'done' })),
    ).toMatchObject({ state: 'failed', code: 'CBS_ERROR' });
  });

  it('failed already while the money is being given back (the payer is told now)', () => {
    const abandoned = { pendingFailureCode: 'CBS_TIMEOUT', pendingFailureDetail: 'the bank did not answer' };
    for (const step of ['resolve_debit', 'reverse'] as const) {
      expect(movementOutcome(movement(), execution({ step, ...abandoned }))).toMatchObject({
        state: 'failed',
        code: 'CBS_TIMEOUT',
        detail: 'the bank did not answer',
      });
    }
    // A pending failure at a step that gives nothing back is not an answer yet.
    expect(movementOutcome(movement(), execution({ step: 'credit', ...abandoned })).state).toBe('in_flight');
  });
});
