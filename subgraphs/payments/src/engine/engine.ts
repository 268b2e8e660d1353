import type { EntityManager } from '@mikro-orm/postgresql';
import type { CoreMovement } from '@gateway/bank-core-client';
import type { Logger } from '@gateway/kernel';
import { OneStatement } from '@gateway/db';
import { wakeOutboxRelay } from '@gateway/events';
import { recordObligationIn } from '../obligation/obligation.service';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { Directory } from '@gateway/federation';
import type { EngineSettings } from './engine.settings';
import type { ExecutionStep, PaymentExecutionEntity } from './execution.entity';
import { executions } from './execution.repository';
import type { EngineFailure, EngineTrigger, Movement, MovementKinds } from '../movement/movement';
import { MovementSettler, type MovementCall, type Settled } from './settle';
import { holdLease, type HeldLease } from '../lease/lease';

type Next = 'continue' | 'wait';

/** A movement (a session, a payment order) and its execution as the engine last recorded them. */
export interface ExecutionState<M extends Movement = Movement> {
  movement: M;
  execution: PaymentExecutionEntity;
}

type MoveChanges = EngineFailure;

/** A step settled whose record waits for the next step's outcome, to be written in its statement. */
interface Unrecorded {
  /** The step the execution row is still at. */
  step: ExecutionStep;
  changes: Partial<PaymentExecutionEntity>;
}

/** Steps with a core call a run may be in the middle of (confirm is rescheduled, not held). */
const RENEWED_STEPS: ReadonlySet<ExecutionStep> = new Set(['debit', 'resolve_debit', 'credit', 'reverse']);

/** Runs the recovery job may have going at once in one process. */
const MAX_CONCURRENT_RUNS = 64;

/** The compensating credit's core reference: distinct from the payment's own credit reference. */
export const reversalReference = (sessionId: string): string => `${sessionId}:reversal`;

/**
 * Executes authorized sessions, one step at a time (see ExecutionStep): each core call sits
 * between two short writes (each one statement) and is never inside a transaction (PGlite has a single connection, and a
 * transaction waiting on HTTP would hold every other request). Every call uses the session id
 * (or `${id}:reversal`) as its core reference, so whoever resumes a step — this process after a
 * retry delay, or the recovery job of any process after a crash — repeats it without moving
 * money twice. Each step's result is recorded with a conditional update on the step it expects,
 * so two executors can never both record one.
 */
export class PaymentEngine {
  private readonly running = new Map<string, Promise<ExecutionState | null>>();
  /** Per run's execution: a settled step recorded with the next one (a same-bank debit with its credit). */
  private readonly unrecorded = new WeakMap<PaymentExecutionEntity, Unrecorded>();
  private readonly settler: MovementSettler;
  private stopped = false;

  constructor(
    directory: Directory,
    cores: BankCorePool,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
    /** How each kind of movement is read and moved (its owner's one writer). */
    private readonly kinds: MovementKinds,
  ) {
    this.settler = new MovementSettler(directory, cores, settings, logger);
  }

  /**
   * Runs the session until it completes, fails, waits for a confirmation or needs a retry later,
   * and answers the state it left (null when it crashed). One run per session at a time in this
   * process; a second call joins the first. `loaded`: the session and execution just written by
   * the caller, so the run need not read them back.
   */
  advance<M extends Movement = Movement>(root: EntityManager, sessionId: string, loaded?: ExecutionState<M>): Promise<ExecutionState<M> | null> {
    const current = this.running.get(sessionId) as Promise<ExecutionState<M> | null> | undefined;
    if (current) return current;
    const run = this.run(root, sessionId, loaded)
      .catch((error) => {
        this.logger.error({ err: error, session: sessionId }, 'payment engine step crashed; the recovery job will resume it');
        return null;
      })
      .finally(() => this.running.delete(sessionId));
    this.running.set(sessionId, run);
    return run as Promise<ExecutionState<M> | null>;
  }

  /** How many more sessions this process should run at once (the recovery job takes no more). */
  capacity(): number {
    return MAX_CONCURRENT_RUNS - this.running.size;
  }

  /**
   * Waits, at most `withinMs`, for the runs in progress to end (shutdown: whoever starts runs has
   * stopped first). True when none is left; a run still going is then stop()ped, and its lease,
   * no longer renewed, lets another process take it over within leaseMs.
   */
  async idle(withinMs: number): Promise<boolean> {
    const deadline = Date.now() + withinMs;
    while (this.running.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.running.values()]), new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now())))]);
      clearTimeout(timer);
    }
    return this.running.size === 0;
  }

  /** After stop() no step records anything: like a killed process, the lease lets another one resume. */
  stop(): void {
    this.stopped = true;
  }

  private async run(root: EntityManager, sessionId: string, loaded?: ExecutionState): Promise<ExecutionState | null> {
    const em = root.fork();
    // Read once: every step's record below keeps both objects as the database has them.
    const execution = loaded?.execution ?? (await executions.find(em, sessionId));
    if (!execution) return null;
    const session = loaded?.movement ?? (await this.kinds[execution.kind].load(em, sessionId));
    if (!session) return null;
    const lease = this.keepLease(root, execution);
    try {
      // Bounded: a session has at most debit, credit, reverse (or resolve_debit, reverse) to go.
      for (let steps = 0; steps < 6 && !this.stopped && !lease.lost(); steps += 1) {
        if ((await this.step(em, session, execution)) === 'wait') break;
      }
    } finally {
      await lease.release();
    }
    return { movement: session, execution };
  }

  /**
   * While this run works on a step (a core call in flight), its lease is renewed (lease/lease.ts),
   * so it can be short without a slow call being taken over. A renewal refused because another
   * process took the row over (its fencing token changed) stops this run; its writes would be
   * refused anyway.
   */
  private keepLease(root: EntityManager, execution: PaymentExecutionEntity): HeldLease {
    const token = execution.leaseToken;
    if (!token) return { lost: () => false, release: () => Promise.resolve() };
    const session = execution.sessionId;
    return holdLease({
      leaseMs: this.settings.leaseMs,
      idle: () => this.stopped || !RENEWED_STEPS.has(execution.step),
      renew: (until) => executions.renewLease(root.fork(), session, token, execution.step, until),
      // Not renewed: the step moved on meanwhile (this run's own record), or the row changed hands.
      confirmLost: async () => {
        const row = await executions.find(root.fork(), session);
        return row !== null && row.leaseToken !== token;
      },
      onLost: () => this.logger.warn({ session, step: execution.step }, 'execution taken over by another process: this run stops'),
      onError: (error) => this.logger.warn({ err: error, session }, 'lease not renewed (database); the run goes on'),
    });
  }

  private step(em: EntityManager, session: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    switch (execution.step) {
      case 'debit':
        return this.debit(em, session, execution);
      case 'resolve_debit':
        return this.resolveDebit(em, session, execution);
      case 'credit':
        return this.credit(em, session, execution);
      case 'confirm':
        return this.confirm(em, session, execution);
      case 'reverse':
        return this.reverse(em, session, execution);
      default:
        return Promise.resolve('wait');
    }
  }

  /** Takes the money from the payer; cross bank, the session then awaits the rail (SETTLEMENT_PENDING). */
  private async debit(em: EntityManager, session: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const settled = await this.settler.settle(payerDebit(session, execution), execution);
    if (settled.kind === 'booked') {
      const debited = { ...known(), ...booked('debit', settled.movement) };
      if (session.settlementType === 'rail') return this.record(em, session, execution, 'debit', { step: 'credit', ...debited }, { trigger: 'cross_bank_debit_booked' });
      // Same bank, where the debit moves nothing the customer sees: the credit follows at once and
      // the debit is recorded with the credit's outcome, in its statement (one statement less per
      // payment). A crash in between leaves the row at `debit`: whoever resumes repeats the debit,
      // which the core answers from its books (same reference), then credits, as for any step.
      this.unrecorded.set(execution, { step: 'debit', changes: { step: 'credit', ...debited } });
      Object.assign(execution, debited);
      return this.credit(em, session, execution);
    }
    if (settled.kind === 'refused') {
      return this.record(em, session, execution, 'debit', { step: 'done', lastError: settled.detail }, { trigger: 'core_failure', changes: failure(settled.code, settled.detail) });
    }
    if (settled.kind === 'later' && settled.unknown.unknownSince === null) return this.postpone(em, session, execution, 'debit', settled);
    // Unknown: the customer is told the payment failed; whether money was taken is established next.
    const code = settled.kind === 'later' ? settled.code : 'CBS_TIMEOUT';
    const unknown = settled.kind === 'later' ? settled.unknown : { unknownSince: new Date(), replays: 1 };
    this.logger.warn({ session: session.id, request_id: execution.requestId, code, detail: settled.detail }, 'debit outcome unknown: payment abandoned, resolving the debit');
    await this.record(em, session, execution, 'debit', {
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
  private async resolveDebit(em: EntityManager, session: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const settled = await this.settler.settle(payerDebit(session, execution), execution);
    if (settled.kind === 'booked') return this.record(em, session, execution, 'resolve_debit', { step: 'reverse', ...known(), ...booked('debit', settled.movement) });
    if (settled.kind === 'refused') {
      const abandoned = failure(execution.pendingFailureCode, execution.pendingFailureDetail);
      return this.record(em, session, execution, 'resolve_debit', { step: 'done', ...known(), lastError: settled.detail }, { trigger: 'core_failure', changes: abandoned });
    }
    if (settled.kind === 'given_up') return this.needsAttention(em, session, execution, 'resolve_debit', settled.detail, OUTCOME_UNKNOWN);
    return this.postpone(em, session, execution, 'resolve_debit', settled);
  }

  /**
   * Pays the payee. Same bank: the session is COMPLETED. Cross bank: a rail credit, the
   * obligation is recorded, and COMPLETED waits for the creditor bank's confirmation. A refused
   * credit is compensated; an unknown one is replayed and reconciled, and compensated only once
   * the creditor's statement shows it missing: reversing a booked credit would pay twice.
   */
  private async credit(em: EntityManager, session: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const settled = await this.settler.settle(payeeCredit(session), execution);
    if (settled.kind === 'booked') {
      const credited = { ...known(), ...booked('credit', settled.movement) };
      if (session.settlementType !== 'rail') return this.record(em, session, execution, 'credit', { step: 'done', ...credited }, { trigger: 'internal_credit_booked' });
      return this.record(em, session, execution, 'credit', { step: 'confirm', leaseUntil: this.later(this.settings.confirmResendAfterMs), ...credited }, { obligation: true });
    }
    if (settled.kind === 'refused') {
      this.logger.warn({ session: session.id, request_id: execution.requestId, code: settled.code, detail: settled.detail }, 'credit refused: reversing the debit');
      return this.record(em, session, execution, 'credit', {
        step: 'reverse',
        ...known(),
        pendingFailureCode: settled.code,
        pendingFailureDetail: settled.detail,
        lastError: settled.detail,
      });
    }
    if (settled.kind === 'given_up') return this.needsAttention(em, session, execution, 'credit', settled.detail, OUTCOME_UNKNOWN);
    return this.postpone(em, session, execution, 'credit', settled);
  }

  /**
   * A rail credit the creditor bank has not confirmed: sent again with the same reference (the
   * core deduplicates; a bank that lost its confirmation sends a fresh one) every
   * confirmResendAfterMs. After confirmGiveUpAfterMs the session completes on the evidence of
   * the booked credit, unless the creditor's statement shows no such credit.
   */
  private async confirm(em: EntityManager, session: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const bookedAt = execution.creditBookedAt ?? execution.updatedAt;
    const giveUpAt = bookedAt.getTime() + this.settings.confirmGiveUpAfterMs;
    if (Date.now() >= giveUpAt) {
      const evidence = await this.settler.statementSays(payeeCredit(session), bookedAt, execution.requestId ?? undefined);
      if (evidence === 'absent') {
        return this.needsAttention(em, session, execution, 'confirm', `${session.creditorBank} never confirmed the rail credit and its statement shows none`, OUTCOME_UNKNOWN);
      }
      this.logger.warn(
        { session: session.id, request_id: execution.requestId, bank: session.creditorBank, evidence },
        'rail credit never confirmed: session completed on the evidence of the booked credit',
      );
      return this.record(em, session, execution, 'confirm', { step: 'done' }, { trigger: 'credit_evidenced' });
    }
    const resent = await this.settler.settle(payeeCredit(session), { ...execution, unknownSince: null });
    this.logger.info({ session: session.id, request_id: execution.requestId, bank: session.creditorBank, outcome: resent.kind }, 'rail credit not confirmed yet: sent again');
    if (this.stopped) return 'wait';
    const next = new Date(Math.min(giveUpAt, Date.now() + this.settings.confirmResendAfterMs));
    await executions.rescheduleConfirm(em, session.id, next, new Date(), execution.leaseToken);
    return 'wait';
  }

  /**
   * Gives the payer the money back, then the session FAILS with the reason the payment was
   * abandoned. A core that refuses the reversal for good, or whose answers stay unknown past the
   * deadline, hands it to an operator: the money must go back, but never twice.
   */
  private async reverse(em: EntityManager, session: Movement, execution: PaymentExecutionEntity): Promise<Next> {
    const settled = await this.settler.settle(payerReversal(session, execution), execution);
    const abandoned = failure(execution.pendingFailureCode, execution.pendingFailureDetail);
    if (settled.kind === 'booked') {
      return this.record(em, session, execution, 'reverse', { step: 'done', ...known(), ...booked('reversal', settled.movement) }, { trigger: 'core_failure', changes: abandoned });
    }
    if (settled.kind === 'refused') return this.needsAttention(em, session, execution, 'reverse', `the reversal was refused: ${settled.detail}`, abandoned);
    if (settled.kind === 'given_up') return this.needsAttention(em, session, execution, 'reverse', settled.detail, abandoned);
    this.logger.error({ session: session.id, request_id: execution.requestId, code: settled.code, detail: settled.detail }, 'reversal failed; retrying later');
    return this.postpone(em, session, execution, 'reverse', settled);
  }

  /**
   * The engine cannot settle the movement: the merchant gets a final answer now (FAILED, unless
   * the session already ended), and the movement waits in the "needs attention" list.
   */
  private needsAttention(em: EntityManager, session: Movement, execution: PaymentExecutionEntity, from: ExecutionStep, reason: string, answer: MoveChanges): Promise<Next> {
    this.logger.error({ session: session.id, request_id: execution.requestId, step: from, reason }, 'movement needs attention: an operator must resolve it');
    const attention = { step: 'attention' as const, attentionStep: from, attentionReason: reason, attentionSince: new Date(), lastError: reason };
    return this.record(em, session, execution, from, attention, { trigger: 'core_failure', changes: answer });
  }

  /**
   * Records a step's result in one statement: the execution row moves on only if it is still at
   * `step` (else someone recorded it first and this run stops), together with the movement's move
   * and, for rail credits, the interbank obligation. A settled step waiting to be recorded (a
   * same-bank debit) is recorded by the same statement: the row is still at that step.
   */
  private async record(
    em: EntityManager,
    session: Movement,
    execution: PaymentExecutionEntity,
    step: ExecutionStep,
    outcome: Partial<PaymentExecutionEntity>,
    also: { trigger?: EngineTrigger; changes?: MoveChanges; obligation?: boolean } = {},
  ): Promise<Next> {
    if (this.stopped) return 'wait';
    const { from, changes } = this.withUnrecorded(execution, step, outcome);
    const now = new Date();
    const update = { leaseUntil: this.later(this.settings.leaseMs), ...changes, updatedAt: now };
    // A session that already ended (an operator's refund after FAILED) keeps its answer.
    const kind = this.kinds[execution.kind];
    const trigger = also.trigger && !kind.isFinal(session) ? also.trigger : undefined;
    // One statement, all or nothing: the step's record (only while this run still holds the row
    // at `from`), the movement's move from the status this run read (its row locked first, so the
    // record never lands without the move) and the obligation.
    const statement = new OneStatement(em);
    if (trigger) statement.lock('movement', kind.entity, { id: session.id, status: session.status });
    executions.recordStepIn(statement, session.id, from, update, execution.leaseToken, trigger ? 'movement' : undefined);
    const moved = trigger ? kind.moveIn(statement, session, trigger, now, also.changes, 'step') : null;
    if (also.obligation) recordObligationIn(statement, session, now, 'step');
    if (!(await statement.run()).step) return 'wait'; // recorded by someone else first, or the movement moved meanwhile
    if (moved) {
      Object.assign(session, moved);
      wakeOutboxRelay(em);
    }
    Object.assign(execution, update);
    execution.attempts += 1;
    return changes.step === 'credit' || changes.step === 'reverse' ? 'continue' : 'wait';
  }

  /** Nothing settled: the same step runs again after the retry delay (here or in any process's recovery job). */
  private async postpone(em: EntityManager, session: Movement, execution: PaymentExecutionEntity, step: ExecutionStep, settled: Settled & { kind: 'later' }): Promise<Next> {
    if (this.stopped) return 'wait';
    const later = { ...settled.unknown, leaseUntil: this.later(this.settings.retryDelayMs), lastError: `${settled.code}: ${settled.detail}`, updatedAt: new Date() };
    const { from, changes } = this.withUnrecorded(execution, step, later);
    if (await executions.recordStep(em, session.id, from, changes, execution.leaseToken)) Object.assign(execution, changes);
    return 'wait';
  }

  /** A record's step and changes, with the settled step waiting to be recorded in the same statement, if any. */
  private withUnrecorded(execution: PaymentExecutionEntity, from: ExecutionStep, changes: Partial<PaymentExecutionEntity>) {
    const carried = this.unrecorded.get(execution);
    if (!carried) return { from, changes };
    this.unrecorded.delete(execution);
    return { from: carried.step, changes: { ...carried.changes, ...changes } };
  }

  private later(ms: number): Date {
    return new Date(Date.now() + ms);
  }
}

/** failure_code of a session whose movement the engine could not settle in time. */
const OUTCOME_UNKNOWN: MoveChanges = { failureCode: 'CBS_OUTCOME_UNKNOWN', failureDetail: "the bank core's outcome could not be established in time; an operator is resolving it" };

/**
 * The description of every movement names the session, so the statement of a core that keeps
 * only descriptions can still be reconciled by reference.
 */
function describe(session: Movement, prefix = ''): string {
  const text = session.description ?? `Payment ${session.reference ?? ''}`.trim();
  return `${prefix}${text.slice(0, 450)} (${session.id})`;
}

const payerDebit = (session: Movement, execution: PaymentExecutionEntity): MovementCall => ({
  bank: session.debtorBank!,
  livemode: session.livemode,
  iban: execution.debtorIban,
  reference: session.id,
  amount: Number(session.amount),
  currency: session.currency,
  direction: 'DEBIT',
  description: describe(session),
});

const payeeCredit = (session: Movement): MovementCall => ({
  bank: session.creditorBank,
  livemode: session.livemode,
  iban: session.creditorIban,
  reference: session.id,
  amount: Number(session.amount),
  currency: session.currency,
  direction: 'CREDIT',
  description: describe(session),
});

const payerReversal = (session: Movement, execution: PaymentExecutionEntity): MovementCall => ({
  ...payerDebit(session, execution),
  reference: reversalReference(session.id),
  direction: 'CREDIT',
  description: describe(session, 'Reversal: '),
});

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
