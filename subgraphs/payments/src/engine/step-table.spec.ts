import type { ExecutionStep } from './execution.entity';
import { assertStepMove, CONFIRMABLE_STEPS, DUE_STEPS, STEP_TABLE } from './step-table';

const STEPS = Object.keys(STEP_TABLE) as ExecutionStep[];

describe("the engine's step table", () => {
  it('names only its own steps, and every step but debit is reached from another', () => {
    for (const step of STEPS) for (const next of STEP_TABLE[step].next) expect(STEPS).toContain(next);
    const reached = new Set(STEPS.flatMap((step) => STEP_TABLE[step].next));
    expect(STEPS.filter((step) => !reached.has(step))).toEqual([]);
    expect(STEP_TABLE.done.next).toEqual([]);
  });

  it("lists the recovery job's steps in the order of the partial index it uses (migration engine_outcomes)", () => {
    expect(DUE_STEPS).toEqual(['debit', 'credit', 'confirm', 'reverse', 'resolve_debit']);
    expect(CONFIRMABLE_STEPS).toEqual(['credit', 'confirm']);
  });

  it('refuses a record the table does not allow, and allows a retry at the same step', () => {
    expect(() => assertStepMove('debit', 'credit')).not.toThrow();
    expect(() => assertStepMove('credit', 'credit')).not.toThrow();
    expect(() => assertStepMove('credit', undefined)).not.toThrow();
    expect(() => assertStepMove('done', 'debit')).toThrow('no step move from done to debit');
    expect(() => assertStepMove('confirm', 'reverse')).toThrow('no step move from confirm to reverse');
  });
});
