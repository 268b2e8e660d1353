import type { ExecutionStep } from './execution.entity';

/** What the engine does at a step, and where a record may take it from there. */
interface StepRules {
  /** Steps a record from this one may go to; any other is a defect, refused before it is written. */
  next: readonly ExecutionStep[];
  /** A core call is made here: the run's lease is renewed while it is in flight. */
  calls: boolean;
  /** The recovery job resumes it once its lease ran out (for confirm: the re-send timer). */
  due: boolean;
  /** Reached by a record, the same run goes on with it at once (else it waits: a retry, a confirmation). */
  runsOn: boolean;
  /** The payer's money is being given back: the payer is told the payment failed now. */
  givesBack: boolean;
  /** A rail credit here can be confirmed by the creditor bank's callback (being sent, or sent). */
  confirmable: boolean;
}

/**
 * The engine's own transition table (as each movement kind has its own for its statuses): the one
 * place that says what a step is. A same-bank debit is recorded with its credit's outcome (one
 * record), so from debit a record may land wherever the credit's would. An operator's decision
 * takes a step needing attention up again (RETRY), to the payer's refund or to done.
 */
export const STEP_TABLE: Readonly<Record<ExecutionStep, StepRules>> = {
  debit: {
    next: ['credit', 'resolve_debit', 'reverse', 'attention', 'done'],
    calls: true,
    due: true,
    runsOn: false,
    givesBack: false,
    confirmable: false,
  },
  credit: {
    next: ['confirm', 'reverse', 'attention', 'done'],
    calls: true,
    due: true,
    runsOn: true,
    givesBack: false,
    confirmable: true,
  },
  confirm: { next: ['attention', 'done'], calls: false, due: true, runsOn: false, givesBack: false, confirmable: true },
  reverse: { next: ['attention', 'done'], calls: true, due: true, runsOn: true, givesBack: true, confirmable: false },
  resolve_debit: {
    next: ['reverse', 'attention', 'done'],
    calls: true,
    due: true,
    runsOn: false,
    givesBack: true,
    confirmable: false,
  },
  attention: {
    next: ['debit', 'credit', 'confirm', 'resolve_debit', 'reverse', 'done'],
    calls: false,
    due: false,
    runsOn: false,
    givesBack: false,
    confirmable: false,
  },
  done: { next: [], calls: false, due: false, runsOn: false, givesBack: false, confirmable: false },
};

const stepsWhere = (rule: keyof Omit<StepRules, 'next'>): ExecutionStep[] =>
  (Object.keys(STEP_TABLE) as ExecutionStep[]).filter((step) => STEP_TABLE[step][rule]);

/** Steps the recovery job picks up once their lease has run out. */
export const DUE_STEPS: readonly ExecutionStep[] = stepsWhere('due');
/** Steps at which a rail credit can be confirmed. */
export const CONFIRMABLE_STEPS: readonly ExecutionStep[] = stepsWhere('confirmable');

/** A record from `from` to `to` (the same step: a retry's record) is one the table allows. */
export function assertStepMove(from: ExecutionStep, to: ExecutionStep | undefined): void {
  if (to === undefined || to === from || STEP_TABLE[from].next.includes(to)) return;
  throw new Error(`engine: no step move from ${from} to ${to} (STEP_TABLE)`);
}
