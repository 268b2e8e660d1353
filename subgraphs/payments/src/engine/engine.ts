import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { OneStatement } from '@gateway/db';
import type { Directory } from '@gateway/federation';
import type { Logger } from '@gateway/kernel';
import type { AccountCurrencies } from '../account-currency/account-currency';
import { holdLease, type HeldLease } from '../lease/lease';
import { reserveIn, type PositionedMovement } from '../net-debit/net-debit.positions';
import type { ExecutionKind, Movement, MovementKinds } from '../movement/movement';
import type { EngineSettings } from './engine.settings';
import type { PaymentExecutionEntity } from './execution.entity';
import { executions } from './execution.repository';
import { movementOutcome, type MovementOutcome } from './movement-outcome';
import { CurrencyCheck, type MovementToCheck } from './currency-check';
import { MovementSettler } from './settle';
import { STEP_TABLE } from './step-table';
import { ExecutionSteps } from './steps';

/** A movement (a movement, a payment order) and its execution as the engine last recorded them. */
interface ExecutionState<M extends Movement = Movement> {
  movement: M;
  execution: PaymentExecutionEntity;
}

/** What the caller knows when a movement is authorized: who pays, from which account, under which request. */
export interface MovementStart {
  movementId: string;
  kind: ExecutionKind;
  /** As the payer gave it: alias or iban at checkout; the account's iban for charges and orders. */
  payer: { type: 'alias' | 'iban'; value: string };
  debtorIban: string;
  /** Checkout: the HMAC of the payer and OTP that authorized it (the same authorization sent again is told the truth). */
  authorizationHash?: string;
  /** The request that authorized it (req_…): sent as X-Request-Id on every core call of it. */
  requestId: string | null;
  /** Its world, banks and money: a cross-bank movement reserves its amount on its debtor bank's position. */
  money: PositionedMovement;
}

/**
 * The start of a movement whose payer is its debtor account, known before it starts (a refund's
 * merchant, a mandate's customer, a payment order's debtor; not a session, whose payer checkout
 * names): it reserves on its own debtor bank.
 */
export const accountMovementStart = (
  kind: Exclude<ExecutionKind, 'session'>,
  movement: PositionedMovement & { id: string; debtorIban: string },
  requestId: string | null | undefined,
): MovementStart => ({
  movementId: movement.id,
  kind,
  payer: { type: 'iban', value: movement.debtorIban },
  debtorIban: movement.debtorIban,
  requestId: requestId ?? null,
  money: movement,
});

/** A movement whose execution the caller's statement writes: handed back to execute() or launch() once it ran. */
export interface StartedMovement {
  readonly movementId: string;
  /** The engine's own: its first run starts from it instead of reading it back. */
  readonly execution: PaymentExecutionEntity;
}

/** Runs the recovery job may have going at once in one process. */
const MAX_CONCURRENT_RUNS = 64;

/**
 * Executes authorized movements, one step at a time (see ExecutionStep): each core call sits
 * between two short writes (each one statement) and is never inside a transaction (PGlite has a single connection, and a
 * transaction waiting on HTTP would hold every other request). Every call uses the movement id
 * (or `${id}:reversal`) as its core reference, so whoever resumes a step — this process after a
 * retry delay, or the recovery job of any process after a crash — repeats it without moving
 * money twice. Each step's result is recorded with a conditional update on the step it expects,
 * so two executors can never both record one.
 */
export class PaymentEngine {
  private readonly running = new Map<string, Promise<ExecutionState | null>>();
  private readonly steps: ExecutionSteps;
  private readonly currencyCheck: CurrencyCheck;
  private stopped = false;

  constructor(
    directory: Directory,
    cores: BankCorePool,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
    /** How each kind of movement is read and moved (its owner's one writer). */
    private readonly kinds: MovementKinds,
    /** What accounts are held in (the pre-debit check). */
    currencies: AccountCurrencies,
  ) {
    this.currencyCheck = new CurrencyCheck(directory, currencies);
    this.steps = new ExecutionSteps(
      new MovementSettler(directory, cores, settings, logger),
      settings,
      logger,
      kinds,
      () => this.stopped,
      this.currencyCheck,
    );
  }

  /**
   * The pre-debit check, asked before a movement is started while nothing is written yet
   * (checkout before its claim, a charge before it exists): 422 CURRENCY_MISMATCH when the
   * payer's or the payee's account is held in another currency than the movement's, so a session
   * stays PENDING (the payer may pay from another account) and a mandate's period stays
   * chargeable. Unknown passes. The debit step asks again (cached) before the first debit of a
   * movement, so one started without asking (a payment order) is refused before its debit too.
   */
  async assertCurrencies(movement: MovementToCheck, requestId?: string): Promise<void> {
    const refused = await this.currencyCheck.refusal(movement, requestId);
    if (refused) throw refused;
  }

  /**
   * The one way a movement enters the engine, whatever its kind: its execution row (the debit is
   * next, leased to this process for leaseMs) as part `execution` of the caller's statement,
   * written only if part `when` (the caller's claim or insert of the movement) changed a row, so
   * the movement and its execution exist together or not at all. Then execute() or launch().
   * A cross-bank movement also reserves its amount on its debtor bank's position in the same
   * statement (net-debit.positions.ts): past the bank's net debit cap the whole statement is
   * refused, 422 NET_DEBIT_CAP_EXCEEDED when the caller runs it, and nothing of it is written.
   * Every kind gets that here; the engine's endings (steps.ts) use or release the reservation.
   */
  startIn(statement: OneStatement, start: MovementStart, now: Date, when: string): StartedMovement {
    reserveIn(statement, start.movementId, start.money, now, when);
    const execution = executions.newRow(
      {
        movementId: start.movementId,
        kind: start.kind,
        payerType: start.payer.type,
        payerValue: start.payer.value,
        debtorIban: start.debtorIban,
        authorizationHash: start.authorizationHash ?? null,
        leaseUntil: new Date(now.getTime() + this.settings.leaseMs),
        requestId: start.requestId,
      },
      now,
    );
    executions.insertIn(statement, execution, when);
    this.steps.debitNotSent(execution);
    return { movementId: start.movementId, execution };
  }

  /**
   * Runs a started movement (once the caller's statement ran) and waits for it at most
   * authorizeWaitMs, the time a payer or a merchant's request is kept waiting: its outcome then.
   * A run still going carries on without the caller. `movement`: the caller's copy, as just
   * written, so the run need not read it back.
   */
  async execute<M extends Movement>(
    em: EntityManager,
    started: StartedMovement,
    movement?: M,
  ): Promise<MovementOutcome<M>> {
    const run = this.advance<M>(em, started.movementId, {
      execution: started.execution,
      ...(movement ? { movement } : {}),
    });
    let timer: NodeJS.Timeout | undefined;
    const state = await Promise.race([
      run,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.settings.authorizeWaitMs))),
    ]);
    clearTimeout(timer);
    if (state) return movementOutcome(state.movement, state.execution);
    // Still running (or crashed, for the recovery job to resume): where it is now.
    const [now, execution] = await Promise.all([
      this.kinds[started.execution.kind].load(em.fork(), started.movementId) as Promise<M | null>,
      executions.find(em.fork(), started.movementId),
    ]);
    return movementOutcome(now ?? movement!, execution);
  }

  /** Runs a started movement without waiting for it (a consumer must not hold its queue on a core); a crash is the recovery job's. */
  launch(root: EntityManager, started: StartedMovement): void {
    void this.advance(root, started.movementId, { execution: started.execution });
  }

  /** The recovery job's: resumes a movement whose lease it took over, from the row as the database has it. */
  resume(root: EntityManager, movementId: string): void {
    void this.advance(root, movementId);
  }

  /** Who authorized a started movement: checkout tells the same authorization sent again from another. */
  async authorization(
    em: EntityManager,
    movementId: string,
  ): Promise<{ authorizationHash: string | null; debtorIban: string } | null> {
    const execution = await executions.find(em.fork(), movementId);
    return execution && { authorizationHash: execution.authorizationHash, debtorIban: execution.debtorIban };
  }

  /**
   * Runs the movement until it completes, fails, waits for a confirmation or needs a retry later,
   * and answers the state it left (null when it crashed). One run per movement at a time in this
   * process; a second call joins the first.
   */
  private advance<M extends Movement = Movement>(
    root: EntityManager,
    movementId: string,
    loaded?: Partial<ExecutionState<M>>,
  ): Promise<ExecutionState<M> | null> {
    const current = this.running.get(movementId) as Promise<ExecutionState<M> | null> | undefined;
    if (current) return current;
    const run = this.run(root, movementId, loaded)
      .catch((error) => {
        this.logger.error(
          { err: error, movement: movementId },
          'payment engine step crashed; the recovery job will resume it',
        );
        return null;
      })
      .finally(() => this.running.delete(movementId));
    this.running.set(movementId, run);
    return run as Promise<ExecutionState<M> | null>;
  }

  /** How many more movements this process should run at once (the recovery job takes no more). */
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
      await Promise.race([
        Promise.allSettled([...this.running.values()]),
        new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
      ]);
      clearTimeout(timer);
    }
    return this.running.size === 0;
  }

  /** After stop() no step records anything: like a killed process, the lease lets another one resume. */
  stop(): void {
    this.stopped = true;
  }

  private async run(
    root: EntityManager,
    movementId: string,
    loaded?: Partial<ExecutionState>,
  ): Promise<ExecutionState | null> {
    const em = root.fork();
    // Read once: every step's record below keeps both objects as the database has them.
    const execution = loaded?.execution ?? (await executions.find(em, movementId));
    if (!execution) return null;
    const movement = loaded?.movement ?? (await this.kinds[execution.kind].load(em, movementId));
    if (!movement) return null;
    const lease = this.keepLease(root, execution);
    try {
      // Bounded: a movement has at most debit, credit, reverse (or resolve_debit, reverse) to go.
      for (let steps = 0; steps < 6 && !this.stopped && !lease.lost(); steps += 1) {
        if ((await this.steps.step(em, movement, execution)) === 'wait') break;
      }
    } finally {
      await lease.release();
    }
    return { movement: movement, execution };
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
    const movement = execution.movementId;
    return holdLease({
      leaseMs: this.settings.leaseMs,
      idle: () => this.stopped || !STEP_TABLE[execution.step].calls,
      renew: (until) => executions.renewLease(root.fork(), movement, token, execution.step, until),
      // Not renewed: the step moved on meanwhile (this run's own record), or the row changed hands.
      confirmLost: async () => {
        const row = await executions.find(root.fork(), movement);
        return row !== null && row.leaseToken !== token;
      },
      onLost: () =>
        this.logger.warn({ movement, step: execution.step }, 'execution taken over by another process: this run stops'),
      onError: (error) => this.logger.warn({ err: error, movement }, 'lease not renewed (database); the run goes on'),
    });
  }
}
