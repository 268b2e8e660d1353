import type { EntityManager } from '@mikro-orm/postgresql';
import type { CoreMovement } from '@gateway/bank-core-client';
import type { Logger } from '@gateway/kernel';
import { OneStatement } from '@gateway/db';
import { wakeOutboxRelay } from '@gateway/events';
import { obligateIn, releaseIn } from '../net-debit/net-debit.positions';
import { OUTCOME_UNKNOWN as OUTCOME_UNKNOWN_CODE } from '../movement/held-outcome';
import type { EngineFailure, EngineTrigger, Movement, MovementKinds } from '../movement/movement';
import { payeeCredit, payerDebit, payerReversal } from './core-calls';
import type { EngineSettings } from './engine.settings';
import type { ExecutionStep, PaymentExecutionEntity } from './execution.entity';
import { executions } from './execution.repository';
import type { CurrencyCheck } from './currency-check';
import type { MovementSettler, Settled } from './settle';
import { assertStepMove, STEP_TABLE } from './step-table';

/** After a step: go on with the next one in this run, or stop (a confirmation, a retry later, someone else's record). */
export type Next = 'continue' | 'wait';

type MoveChanges = EngineFailure;

/** A step settled whose record waits for the next step's outcome, to be written in its statement. */
interface Unrecorded {
  /** The step the execution row is still at. */
  step: ExecutionStep;
  changes: Partial<PaymentExecutionEntity>;
}

/**
 * The engine's steps (see ExecutionStep): each makes its core call through the settler, then
 * records its result with a conditional update on the step it expects, in one statement with the
 * movement's move and, for rail credits, the interbank obligation. PaymentEngine runs them.
 */
export class ExecutionSteps {
  /** Per run's execution: a settled step recorded with the next one (a same-bank debit with its credit). */
  private readonly unrecorded = new WeakMap<PaymentExecutionEntity, Unrecorded>();
  /** Executions this process started whose debit no call has carried yet (see debitNotSent). */
  private readonly notSent = new WeakSet<PaymentExecutionEntity>();

  constructor(
    private readonly settler: MovementSettler,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
    private readonly kinds: MovementKinds,
    /** After the engine stops no step records anything: like a killed process, the lease lets another one resume. */
    private readonly stopped: () => boolean,
    private readonly currencyCheck: CurrencyCheck,
  ) {}

  /**
   * A new execution (PaymentEngine.startIn): before its first debit is sent, the payer's and the
   * payee's accounts are checked against the movement's currency (currency-check.ts). Only then:
   * a resumed execution (recovery, a retry) may have reached the core already, and only the
   * core's books may answer for that debit.
   */
  debitNotSent(execution: PaymentExecutionEntity): void {
    this.notSent.add(execution);
  }

  /** Runs the execution's current step once. */
  step(em: EntityManager, movement: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    switch (execution.step) {
      case 'debit':
        return this.debit(em, movement, execution);
      case 'resolve_debit':
        return this.resolveDebit(em, movement, execution);
      case 'credit':
        return this.credit(em, movement, execution);
      case 'confirm':
        return this.confirm(em, movement, execution);
      case 'reverse':
        return this.reverse(em, movement, execution);
      default:
        return Promise.resolve('wait');
    }
  }

  /** Takes the money from the payer; cross bank, the movement then awaits the rail (SETTLEMENT_PENDING). */
  private async debit(em: EntityManager, movement: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    if (this.notSent.delete(execution)) {
      const refused = await this.currencyRefusal(movement, execution);
      // Nothing was sent: the movement FAILS as on a refused debit, with the mismatch as its reason.
      if (refused)
        return this.record(
          em,
          movement,
          execution,
          'debit',
          { step: 'done', lastError: refused.detail },
          { trigger: 'core_failure', changes: failure(refused.code, refused.detail) },
        );
    }
    const settled = await this.settler.settle(payerDebit(movement, execution), execution);
    if (settled.kind === 'booked') {
      const debited = { ...known(), ...booked('debit', settled.movement) };
      if (movement.settlementType === 'rail')
        return this.record(
          em,
          movement,
          execution,
          'debit',
          { step: 'credit', ...debited },
          { trigger: 'cross_bank_debit_booked' },
        );
      // Same bank, where the debit moves nothing the customer sees: the credit follows at once and
      // the debit is recorded with the credit's outcome, in its statement (one statement less per
      // payment). A crash in between leaves the row at `debit`: whoever resumes repeats the debit,
      // which the core answers from its books (same reference), then credits, as for any step.
      this.unrecorded.set(execution, { step: 'debit', changes: { step: 'credit', ...debited } });
      Object.assign(execution, debited);
      return this.credit(em, movement, execution);
    }
    if (settled.kind === 'refused') {
      return this.record(
        em,
        movement,
        execution,
        'debit',
        { step: 'done', lastError: settled.detail },
        { trigger: 'core_failure', changes: failure(settled.code, settled.detail) },
      );
    }
    if (settled.kind === 'later' && settled.unknown.unknownSince === null)
      return this.postpone(em, movement, execution, 'debit', settled);
    // Unknown: the customer is told the payment failed; whether money was taken is established next.
    const code = settled.kind === 'later' ? settled.code : 'CBS_TIMEOUT';
    const unknown = settled.kind === 'later' ? settled.unknown : { unknownSince: new Date(), replays: 1 };
    this.logger.warn(
      { movement: movement.id, request_id: execution.requestId, code, detail: settled.detail },
      'debit outcome unknown: payment abandoned, resolving the debit',
    );
    await this.record(em, movement, execution, 'debit', {
      step: 'resolve_debit',
      ...unknown,
      pendingFailureCode: code,
      pendingFailureDetail: settled.detail,
      lastError: settled.detail,
      leaseUntil: this.later(this.settings.retryDelayMs),
    });
    return 'wait';
  }

  /**
   * An abandoned payment whose debit may or may not have been booked: a replay of the same
   * reference, or the payer's statement, tells. Money taken is given back; money never taken
   * ends the payment as it is.
   */
  private async resolveDebit(em: EntityManager, movement: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const settled = await this.settler.settle(payerDebit(movement, execution), execution);
    if (settled.kind === 'booked')
      return this.record(em, movement, execution, 'resolve_debit', {
        step: 'reverse',
        ...known(),
        ...booked('debit', settled.movement),
      });
    if (settled.kind === 'refused') {
      const abandoned = failure(execution.pendingFailureCode, execution.pendingFailureDetail);
      return this.record(
        em,
        movement,
        execution,
        'resolve_debit',
        { step: 'done', ...known(), lastError: settled.detail },
        { trigger: 'core_failure', changes: abandoned, payerWhole: true },
      );
    }
    if (settled.kind === 'given_up')
      return this.needsAttention(em, movement, execution, 'resolve_debit', settled.detail, OUTCOME_UNKNOWN);
    return this.postpone(em, movement, execution, 'resolve_debit', settled);
  }

  /**
   * Pays the payee. Same bank: the movement is COMPLETED. Cross bank: a rail credit, the
   * obligation is recorded, and COMPLETED waits for the creditor bank's confirmation. A refused
   * credit is compensated; an unknown one is replayed and reconciled, and compensated only once
   * the creditor's statement shows it missing: reversing a booked credit would pay twice.
   */
  private async credit(em: EntityManager, movement: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const settled = await this.settler.settle(payeeCredit(movement), execution);
    if (settled.kind === 'booked') {
      const credited = { ...known(), ...booked('credit', settled.movement) };
      if (movement.settlementType !== 'rail')
        return this.record(
          em,
          movement,
          execution,
          'credit',
          { step: 'done', ...credited },
          { trigger: 'internal_credit_booked' },
        );
      return this.record(
        em,
        movement,
        execution,
        'credit',
        { step: 'confirm', leaseUntil: this.later(this.settings.confirmResendAfterMs), ...credited },
        { obligation: true },
      );
    }
    if (settled.kind === 'refused') {
      this.logger.warn(
        { movement: movement.id, request_id: execution.requestId, code: settled.code, detail: settled.detail },
        'credit refused: reversing the debit',
      );
      return this.record(em, movement, execution, 'credit', {
        step: 'reverse',
        ...known(),
        pendingFailureCode: settled.code,
        pendingFailureDetail: settled.detail,
        lastError: settled.detail,
      });
    }
    if (settled.kind === 'given_up')
      return this.needsAttention(em, movement, execution, 'credit', settled.detail, OUTCOME_UNKNOWN);
    return this.postpone(em, movement, execution, 'credit', settled);
  }

  /**
   * A rail credit the creditor bank has not confirmed: sent again with the same reference (the
   * core deduplicates; a bank that lost its confirmation sends a fresh one) every
   * confirmResendAfterMs. After confirmGiveUpAfterMs the movement completes on the evidence of
   * the booked credit, unless the creditor's statement shows no such credit.
   */
  private async confirm(em: EntityManager, movement: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const bookedAt = execution.creditBookedAt ?? execution.updatedAt;
    const giveUpAt = bookedAt.getTime() + this.settings.confirmGiveUpAfterMs;
    if (Date.now() >= giveUpAt) {
      const evidence = await this.settler.statementSays(
        payeeCredit(movement),
        bookedAt,
        execution.requestId ?? undefined,
      );
      if (evidence === 'absent') {
        return this.needsAttention(
          em,
          movement,
          execution,
          'confirm',
          `${movement.creditorBank} never confirmed the rail credit and its statement shows none`,
          OUTCOME_UNKNOWN,
        );
      }
      this.logger.warn(
        { movement: movement.id, request_id: execution.requestId, bank: movement.creditorBank, evidence },
        'rail credit never confirmed: movement completed on the evidence of the booked credit',
      );
      return this.record(em, movement, execution, 'confirm', { step: 'done' }, { trigger: 'credit_evidenced' });
    }
    const resent = await this.settler.settle(payeeCredit(movement), { ...execution, unknownSince: null });
    this.logger.info(
      { movement: movement.id, request_id: execution.requestId, bank: movement.creditorBank, outcome: resent.kind },
      'rail credit not confirmed yet: sent again',
    );
    if (this.stopped()) return 'wait';
    const next = new Date(Math.min(giveUpAt, Date.now() + this.settings.confirmResendAfterMs));
    await executions.rescheduleConfirm(em, movement.id, next, new Date(), execution.leaseToken);
    return 'wait';
  }

  /**
   * Gives the payer the money back, then the movement FAILS with the reason the payment was
   * abandoned. A core that refuses the reversal for good, or whose answers stay unknown past the
   * deadline, hands it to an operator: the money must go back, but never twice.
   */
  private async reverse(em: EntityManager, movement: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const settled = await this.settler.settle(payerReversal(movement, execution), execution);
    const abandoned = failure(execution.pendingFailureCode, execution.pendingFailureDetail);
    if (settled.kind === 'booked') {
      return this.record(
        em,
        movement,
        execution,
        'reverse',
        { step: 'done', ...known(), ...booked('reversal', settled.movement) },
        { trigger: 'core_failure', changes: abandoned, payerWhole: true },
      );
    }
    if (settled.kind === 'refused')
      return this.needsAttention(
        em,
        movement,
        execution,
        'reverse',
        `the reversal was refused: ${settled.detail}`,
        abandoned,
      );
    if (settled.kind === 'given_up')
      return this.needsAttention(em, movement, execution, 'reverse', settled.detail, abandoned);
    this.logger.error(
      { movement: movement.id, request_id: execution.requestId, code: settled.code, detail: settled.detail },
      'reversal failed; retrying later',
    );
    return this.postpone(em, movement, execution, 'reverse', settled);
  }

  /**
   * The engine cannot settle the movement: the merchant gets a final answer now (FAILED, unless
   * the movement already ended), and the movement waits in the "needs attention" list.
   */
  private needsAttention(
    em: EntityManager,
    movement: Movement,
    execution: PaymentExecutionEntity,
    from: ExecutionStep,
    reason: string,
    answer: MoveChanges,
  ): Promise<Next> {
    this.logger.error(
      { movement: movement.id, request_id: execution.requestId, step: from, reason },
      'movement needs attention: an operator must resolve it',
    );
    const attention = {
      step: 'attention' as const,
      attentionStep: from,
      attentionReason: reason,
      attentionSince: new Date(),
      lastError: reason,
    };
    return this.record(em, movement, execution, from, attention, { trigger: 'core_failure', changes: answer });
  }

  /**
   * Records a step's result in one statement: the execution row moves on only if it is still at
   * `step` (else someone recorded it first and this run stops), together with the movement's move
   * and, for rail credits, the interbank obligation. A settled step waiting to be recorded (a
   * same-bank debit) is recorded by the same statement: the row is still at that step.
   * `payerWhole`: the step found the payer's money back (a reversal booked) or never taken (a
   * debit refused). A movement that already had its answer (an operator's REFUND_PAYER or RETRY
   * after CBS_OUTCOME_UNKNOWN) does not move, but its owner may release what it held meanwhile
   * (payerWholeIn), in the same statement: once, with the step's record.
   */
  private async record(
    em: EntityManager,
    movement: Movement,
    execution: PaymentExecutionEntity,
    step: ExecutionStep,
    outcome: Partial<PaymentExecutionEntity>,
    also: { trigger?: EngineTrigger; changes?: MoveChanges; obligation?: boolean; payerWhole?: boolean } = {},
  ): Promise<Next> {
    if (this.stopped()) return 'wait';
    const { from, changes } = this.withUnrecorded(execution, step, outcome);
    assertStepMove(from, changes.step);
    const now = new Date();
    const update = { leaseUntil: this.later(this.settings.leaseMs), ...changes, updatedAt: now };
    // A movement that already ended (an operator's refund after FAILED) keeps its answer.
    const kind = this.kinds[execution.kind];
    const final = kind.isFinal(movement);
    const trigger = also.trigger && !final ? also.trigger : undefined;
    // One statement, all or nothing: the step's record (only while this run still holds the row
    // at `from`), the movement's move from the status this run read (its row locked first, so the
    // record never lands without the move) and the obligation.
    const statement = new OneStatement(em);
    if (trigger) statement.lock('movement', kind.entity, { id: movement.id, status: movement.status });
    executions.recordStepIn(
      statement,
      movement.id,
      from,
      update,
      execution.leaseToken,
      trigger ? 'movement' : undefined,
    );
    const moved = trigger ? kind.moveIn(statement, movement, trigger, now, also.changes, 'step') : null;
    const released = final && also.payerWhole ? kind.payerWholeIn?.(statement, movement, now, 'step') : undefined;
    // The reservation made at the entry (startIn) ends with the movement's money: it becomes the
    // obligation when the credit is booked between banks, and is given back when the execution
    // is done without one (failed, given back). Held for attention, it stays: the movement is not
    // finished. Both delete the movement's reservation row, so only one of them moves the sums.
    if (also.obligation) obligateIn(statement, movement, now, 'step');
    else if (changes.step === 'done' && movement.settlementType === 'rail')
      releaseIn(statement, movement.id, now, 'step');
    if (!(await statement.run()).step) return 'wait'; // recorded by someone else first, or the movement moved meanwhile
    if (moved) {
      Object.assign(movement, moved);
      wakeOutboxRelay(em);
    }
    if (released) Object.assign(movement, released);
    Object.assign(execution, update);
    execution.attempts += 1;
    return changes.step !== undefined && STEP_TABLE[changes.step].runsOn ? 'continue' : 'wait';
  }

  /** Nothing settled: the same step runs again after the retry delay (here or in any process's recovery job). */
  private async postpone(
    em: EntityManager,
    movement: Movement,
    execution: PaymentExecutionEntity,
    step: ExecutionStep,
    settled: Settled & { kind: 'later' },
  ): Promise<Next> {
    if (this.stopped()) return 'wait';
    const later = {
      ...settled.unknown,
      leaseUntil: this.later(this.settings.retryDelayMs),
      lastError: `${settled.code}: ${settled.detail}`,
      updatedAt: new Date(),
    };
    const { from, changes } = this.withUnrecorded(execution, step, later);
    assertStepMove(from, changes.step);
    if (await executions.recordStep(em, movement.id, from, changes, execution.leaseToken))
      Object.assign(execution, changes);
    return 'wait';
  }

  /** A record's step and changes, with the settled step waiting to be recorded in the same statement, if any. */
  private withUnrecorded(
    execution: PaymentExecutionEntity,
    from: ExecutionStep,
    changes: Partial<PaymentExecutionEntity>,
  ) {
    const carried = this.unrecorded.get(execution);
    if (!carried) return { from, changes };
    this.unrecorded.delete(execution);
    return { from: carried.step, changes: { ...carried.changes, ...changes } };
  }

  /** The pre-debit check (currency-check.ts): its starter's answer (cached), or a first one for a movement started without it. */
  private currencyRefusal(movement: Movement, execution: PaymentExecutionEntity) {
    if (!movement.debtorBank) return Promise.resolve(null);
    return this.currencyCheck.refusal(
      {
        kind: execution.kind,
        livemode: movement.livemode,
        currency: movement.currency,
        payer: { bank: movement.debtorBank, iban: execution.debtorIban, name: execution.payerValue },
        payee: { bank: movement.creditorBank, iban: movement.creditorIban, name: movement.creditorIban },
      },
      execution.requestId ?? undefined,
    );
  }

  private later(ms: number): Date {
    return new Date(Date.now() + ms);
  }
}

/** failure_code of a movement the engine could not settle in time. */
const OUTCOME_UNKNOWN: MoveChanges = {
  failureCode: OUTCOME_UNKNOWN_CODE,
  failureDetail: "the bank core's outcome could not be established in time; an operator is resolving it",
};

/** The step is settled: the next one starts with its outcome known. */
const known = (): Partial<PaymentExecutionEntity> => ({ unknownSince: null, replays: 0 });

function booked(kind: 'debit' | 'credit' | 'reversal', movement: CoreMovement | null): Partial<PaymentExecutionEntity> {
  const told = movement?.bookedAt ? new Date(movement.bookedAt) : null;
  const at = told && !Number.isNaN(told.getTime()) ? told : new Date();
  const transactionId = movement?.transactionId ?? null;
  if (kind === 'debit') return { debitBookedAt: at, debitTransactionId: transactionId };
  if (kind === 'credit') return { creditBookedAt: at, creditTransactionId: transactionId };
  return { reversalBookedAt: at, reversalTransactionId: transactionId };
}

function failure(code: string | null, detail: string | null): MoveChanges {
  return { failureCode: code ?? 'CBS_ERROR', failureDetail: detail ?? 'the bank core failed' };
}
