import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCoreClient, CoreMovement } from '@gateway/bank-core-client';
import type { Logger } from '@gateway/kernel';
import { recordObligation } from '../obligation/obligation.service';
import type { PaymentSessionEntity } from '../session/session.entity';
import { loadSession, moveSession, type MoveChanges } from '../session/session.moves';
import type { SessionTrigger } from '../session/session.transitions';
import type { BankCores } from './cores';
import type { Directory } from './directory';
import type { EngineSettings } from './engine.settings';
import { PaymentExecutionEntity, type ExecutionStep } from './execution.entity';
import { outcomeOf, type CallOutcome } from './outcome';

type Next = 'continue' | 'wait';

/** A session and its execution as the engine last recorded them. */
export interface ExecutionState {
  session: PaymentSessionEntity;
  execution: PaymentExecutionEntity;
}

/** Runs the recovery job may have going at once in one process. */
const MAX_CONCURRENT_RUNS = 64;

/** The compensating credit's core reference: distinct from the payment's own credit reference. */
export const reversalReference = (sessionId: string): string => `${sessionId}:reversal`;

/** A step recorded by someone else first (another process, or the credit-confirmed callback). */
class LostRace extends Error {}

/**
 * Executes authorized sessions, one step at a time (see ExecutionStep): each core call sits
 * between two short transactions and is never inside one (PGlite has a single connection, and a
 * transaction waiting on HTTP would hold every other request). Every call uses the session id
 * (or `${id}:reversal`) as its core reference, so whoever resumes a step — this process after a
 * retry delay, or the recovery job of any process after a crash — repeats it without moving
 * money twice. Each step's result is recorded with a conditional update on the step it expects,
 * so two executors can never both record one.
 */
export class PaymentEngine {
  private readonly running = new Map<string, Promise<ExecutionState | null>>();
  private stopped = false;

  constructor(
    private readonly directory: Directory,
    private readonly cores: BankCores,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs the session until it completes, fails, waits for a confirmation or needs a retry later,
   * and answers the state it left (null when it crashed). One run per session at a time in this
   * process; a second call joins the first. `loaded`: the session and execution just written by
   * the caller, so the run need not read them back.
   */
  advance(root: EntityManager, sessionId: string, loaded?: ExecutionState): Promise<ExecutionState | null> {
    const current = this.running.get(sessionId);
    if (current) return current;
    const run = this.run(root, sessionId, loaded)
      .catch((error) => {
        this.logger.error({ err: error, session: sessionId }, 'payment engine step crashed; the recovery job will resume it');
        return null;
      })
      .finally(() => this.running.delete(sessionId));
    this.running.set(sessionId, run);
    return run;
  }

  /** How many more sessions this process should run at once (the recovery job takes no more). */
  capacity(): number {
    return MAX_CONCURRENT_RUNS - this.running.size;
  }

  /** After stop() no step records anything: like a killed process, the lease lets another one resume. */
  stop(): void {
    this.stopped = true;
  }

  private async run(root: EntityManager, sessionId: string, loaded?: ExecutionState): Promise<ExecutionState | null> {
    const em = root.fork();
    // Read once: every step's record below keeps both objects as the database has them.
    const session = loaded?.session ?? (await loadSession(em, sessionId));
    const execution = loaded?.execution ?? (await em.findOne(PaymentExecutionEntity, { sessionId }, { disableIdentityMap: true }));
    if (!session || !execution) return null;
    // Bounded: a session has at most debit, credit, reverse (or resolve_debit, reverse) to go.
    for (let steps = 0; steps < 6 && !this.stopped; steps += 1) {
      if ((await this.step(em, session, execution)) === 'wait') break;
    }
    return { session, execution };
  }

  private step(em: EntityManager, session: PaymentSessionEntity, execution: PaymentExecutionEntity): Promise<Next> {
    switch (execution.step) {
      case 'debit':
        return this.debit(em, session, execution);
      case 'resolve_debit':
        return this.resolveDebit(em, session, execution);
      case 'credit':
        return this.credit(em, session, execution);
      case 'reverse':
        return this.reverse(em, session, execution);
      default:
        return Promise.resolve('wait');
    }
  }

  /** Takes the money from the payer; cross bank, the session then awaits the rail (SETTLEMENT_PENDING). */
  private async debit(em: EntityManager, session: PaymentSessionEntity, execution: PaymentExecutionEntity): Promise<Next> {
    const outcome = await this.movement(session.debtorBank!, (core) =>
      core.debit({ iban: execution.debtorIban, amount: Number(session.amount), currency: session.currency, reference: session.id, description: describe(session) }),
    );
    if (outcome.ok) {
      const crossBank = session.settlementType === 'rail';
      return this.record(em, session, execution, 'debit', { step: 'credit', ...booked('debit', outcome.value) }, crossBank ? { trigger: 'cross_bank_debit_booked' } : undefined);
    }
    if (outcome.kind === 'refused') {
      return this.record(em, session, execution, 'debit', { step: 'done', lastError: outcome.detail }, { trigger: 'core_failure', changes: failure(outcome.code, outcome.detail) });
    }
    if (outcome.kind === 'unknown') {
      // The customer is told the payment failed; whether money was taken is settled by a replay later.
      this.logger.warn({ session: session.id, code: outcome.code, detail: outcome.detail }, 'debit outcome unknown: payment abandoned, resolving the debit');
      return this.record(em, session, execution, 'debit', {
        step: 'resolve_debit',
        pendingFailureCode: outcome.code,
        pendingFailureDetail: outcome.detail,
        lastError: outcome.detail,
        leaseUntil: this.later(this.settings.retryDelayMs),
      }).then(() => 'wait');
    }
    return this.postpone(em, session, 'debit', outcome);
  }

  /**
   * An abandoned payment whose debit may or may not have been booked: replaying the same
   * reference answers either the first booking or a new one, so afterwards the money is surely
   * taken and can be reversed; a refusal means it never was.
   */
  private async resolveDebit(em: EntityManager, session: PaymentSessionEntity, execution: PaymentExecutionEntity): Promise<Next> {
    const outcome = await this.movement(session.debtorBank!, (core) =>
      core.debit({ iban: execution.debtorIban, amount: Number(session.amount), currency: session.currency, reference: session.id, description: describe(session) }),
    );
    if (outcome.ok) return this.record(em, session, execution, 'resolve_debit', { step: 'reverse', ...booked('debit', outcome.value) });
    if (outcome.kind === 'refused') {
      return this.record(em, session, execution, 'resolve_debit', { step: 'done', lastError: outcome.detail }, { trigger: 'core_failure', changes: failure(execution.pendingFailureCode, execution.pendingFailureDetail) });
    }
    return this.postpone(em, session, 'resolve_debit', outcome);
  }

  /**
   * Pays the payee. Same bank: the session is COMPLETED. Cross bank: a rail credit (the creditor
   * bank tells it from the reference), the obligation is recorded, and COMPLETED waits for the creditor bank's confirmation.
   * A refused credit is compensated; an unknown one is replayed, never compensated, because
   * reversing a credit that was in fact booked would pay twice.
   */
  private async credit(em: EntityManager, session: PaymentSessionEntity, execution: PaymentExecutionEntity): Promise<Next> {
    const crossBank = session.settlementType === 'rail';
    const outcome = await this.movement(session.creditorBank, (core) =>
      core.credit({
        iban: session.creditorIban,
        amount: Number(session.amount),
        currency: session.currency,
        reference: session.id,
        description: describe(session),
      }),
    );
    if (outcome.ok) {
      if (!crossBank) return this.record(em, session, execution, 'credit', { step: 'done', ...booked('credit', outcome.value) }, { trigger: 'internal_credit_booked' });
      return this.record(em, session, execution, 'credit', { step: 'confirm', ...booked('credit', outcome.value) }, { obligation: true });
    }
    if (outcome.kind === 'refused') {
      this.logger.warn({ session: session.id, code: outcome.code, detail: outcome.detail }, 'credit refused: reversing the debit');
      return this.record(em, session, execution, 'credit', { step: 'reverse', pendingFailureCode: outcome.code, pendingFailureDetail: outcome.detail, lastError: outcome.detail });
    }
    return this.postpone(em, session, 'credit', outcome);
  }

  /** Gives the payer the money back, then the session FAILS with the reason the payment was abandoned. */
  private async reverse(em: EntityManager, session: PaymentSessionEntity, execution: PaymentExecutionEntity): Promise<Next> {
    const outcome = await this.movement(session.debtorBank!, (core) =>
      core.credit({
        iban: execution.debtorIban,
        amount: Number(session.amount),
        currency: session.currency,
        reference: reversalReference(session.id),
        description: `Reversal of payment ${session.id}`,
      }),
    );
    if (outcome.ok) {
      return this.record(em, session, execution, 'reverse', { step: 'done', ...booked('reversal', outcome.value) }, { trigger: 'core_failure', changes: failure(execution.pendingFailureCode, execution.pendingFailureDetail) });
    }
    // The money must go back whatever the core says: keep trying, loudly.
    this.logger.error({ session: session.id, code: outcome.code, detail: outcome.detail }, 'reversal failed; retrying later');
    return this.postpone(em, session, 'reverse', outcome);
  }

  private async movement(bankHandle: string, call: (core: BankCoreClient) => Promise<CoreMovement>): Promise<CallOutcome<CoreMovement>> {
    return outcomeOf(async () => call(this.cores.for(await this.directory.bank({ handle: bankHandle }))), this.logger);
  }

  /**
   * Records a step's result in one short transaction: the execution row moves on only if it is
   * still at `from` (else someone recorded it first and this run stops), together with the
   * session's move and, for rail credits, the interbank obligation.
   */
  private async record(
    em: EntityManager,
    session: PaymentSessionEntity,
    execution: PaymentExecutionEntity,
    from: ExecutionStep,
    changes: Partial<PaymentExecutionEntity>,
    also: { trigger?: SessionTrigger; changes?: MoveChanges; obligation?: boolean } = {},
  ): Promise<Next> {
    if (this.stopped) return 'wait';
    const now = new Date();
    const update = { leaseUntil: this.later(this.settings.leaseMs), ...changes, updatedAt: now };
    try {
      await em.transactional(async (tx) => {
        const count = await tx.nativeUpdate(PaymentExecutionEntity, { sessionId: session.id, step: from }, { ...update, attempts: raw('attempts + 1') });
        if (count === 0) throw new LostRace();
        if (also.trigger && !(await moveSession(tx, session, also.trigger, now, also.changes))) throw new LostRace();
        if (also.obligation) await recordObligation(tx, session, now);
      });
    } catch (error) {
      if (error instanceof LostRace) return 'wait';
      throw error;
    }
    Object.assign(execution, update);
    execution.attempts += 1;
    const next = changes.step;
    return next === 'done' || next === 'confirm' ? 'wait' : 'continue';
  }

  /** Nothing recorded: the same step runs again after the retry delay (here or in any process's recovery job). */
  private async postpone(em: EntityManager, session: PaymentSessionEntity, step: ExecutionStep, outcome: CallOutcome<unknown> & { ok: false }): Promise<Next> {
    if (this.stopped) return 'wait';
    await em.nativeUpdate(
      PaymentExecutionEntity,
      { sessionId: session.id, step },
      { leaseUntil: this.later(this.settings.retryDelayMs), lastError: `${outcome.code}: ${outcome.detail}`, attempts: raw('attempts + 1'), updatedAt: new Date() },
    );
    return 'wait';
  }

  private later(ms: number): Date {
    return new Date(Date.now() + ms);
  }
}

function describe(session: PaymentSessionEntity): string {
  return (session.description ?? `Payment ${session.reference ?? session.id}`).slice(0, 500);
}

function booked(kind: 'debit' | 'credit' | 'reversal', movement: CoreMovement): Partial<PaymentExecutionEntity> {
  const told = movement.bookedAt ? new Date(movement.bookedAt) : null;
  const at = told && !Number.isNaN(told.getTime()) ? told : new Date();
  if (kind === 'debit') return { debitBookedAt: at, debitTransactionId: movement.transactionId };
  if (kind === 'credit') return { creditBookedAt: at, creditTransactionId: movement.transactionId };
  return { reversalBookedAt: at, reversalTransactionId: movement.transactionId };
}

function failure(code: string | null, detail: string | null): MoveChanges {
  return { failureCode: code ?? 'CBS_ERROR', failureDetail: detail ?? 'the bank core failed' };
}
