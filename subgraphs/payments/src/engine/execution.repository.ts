import { randomUUID } from 'node:crypto';
import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import { PaymentExecutionEntity, type ExecutionStep } from './execution.entity';
import { DUE_STEPS } from './step-table';

/** Columns a step's record may set (the step itself, its outcome, its lease). */
export type ExecutionChanges = Partial<Omit<PaymentExecutionEntity, 'movementId' | 'attempts' | 'createdAt'>>;

/** What the engine writes when a movement starts (PaymentEngine.startIn). */
export type NewExecution = Pick<
  PaymentExecutionEntity,
  'movementId' | 'payerType' | 'payerValue' | 'debtorIban' | 'leaseUntil' | 'requestId'
> &
  Partial<Pick<PaymentExecutionEntity, 'kind' | 'authorizationHash'>>;

/**
 * The one writer of payments.payment_executions (CONVENTIONS "Data": one owner per table). The
 * engine, the recovery job, checkout, the credit-confirmed callback and the operator's
 * resolution all move an execution through here. Every write is conditional on the step the
 * caller expects, so of two writers (two processes, or the engine and the callback) exactly one
 * records; each method answers whether it did. Writes take the caller's EntityManager, so they
 * join the caller's transaction (a step's record commits with the movement's move and its
 * obligation, or not at all).
 */
export class ExecutionRepository {
  /** The row as the database has it now, untracked (the engine updates it in place). */
  find(em: EntityManager, movementId: string): Promise<PaymentExecutionEntity | null> {
    return em.findOne(PaymentExecutionEntity, { movementId }, { disableIdentityMap: true });
  }

  /** The row of a movement just started (PaymentEngine.startIn): the debit is next. Not written: see insertIn. */
  newRow(fields: NewExecution, now: Date): PaymentExecutionEntity {
    return Object.assign(new PaymentExecutionEntity(), {
      kind: 'session',
      ...fields,
      step: 'debit',
      leaseToken: randomUUID(),
      attempts: 0,
      replays: 0,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Writes a new row as part `execution` of the caller's OneStatement, if part `when` changed a row. */
  insertIn(statement: OneStatement, row: PaymentExecutionEntity, when: string): void {
    statement.insert('execution', PaymentExecutionEntity, { ...row }, when);
  }

  /**
   * A step's result (one more core call), recorded only if the row is still at `from` and, for the
   * engine, still held with its lease token (null: the caller holds no lease, e.g. an operator).
   */
  async recordStep(
    em: EntityManager,
    movementId: string,
    from: ExecutionStep,
    changes: ExecutionChanges,
    leaseToken: string | null = null,
  ): Promise<boolean> {
    const statement = new OneStatement(em);
    this.recordStepIn(statement, movementId, from, changes, leaseToken);
    return (await statement.run()).step! > 0;
  }

  /** recordStep as a part (`step`) of the caller's OneStatement, written only if part `when` changed a row, when given. */
  recordStepIn(
    statement: OneStatement,
    movementId: string,
    from: ExecutionStep,
    changes: ExecutionChanges,
    leaseToken: string | null,
    when?: string,
  ): void {
    const owned = leaseToken === null ? {} : { leaseToken };
    statement.update(
      'step',
      PaymentExecutionEntity,
      { movementId, step: from, ...owned },
      { ...changes, attempts: raw('attempts + 1') },
      when,
    );
  }

  /**
   * Keeps the lease of a step still being worked on (a core call in flight) for another `leaseMs`,
   * if this owner still holds it; false: it was taken over, and the owner must stop.
   */
  async renewLease(
    em: EntityManager,
    movementId: string,
    leaseToken: string,
    step: ExecutionStep,
    leaseUntil: Date,
  ): Promise<boolean> {
    return (await em.nativeUpdate(PaymentExecutionEntity, { movementId, leaseToken, step }, { leaseUntil })) > 0;
  }

  /** A rail credit sent again while its confirmation is awaited: the next re-send is due at `next`. */
  async rescheduleConfirm(
    em: EntityManager,
    movementId: string,
    next: Date,
    now: Date,
    leaseToken: string | null = null,
  ): Promise<boolean> {
    const owned = leaseToken === null ? {} : { leaseToken };
    return (
      (await em.nativeUpdate(
        PaymentExecutionEntity,
        { movementId, step: 'confirm', ...owned },
        { leaseUntil: next, attempts: raw('attempts + 1'), updatedAt: now },
      )) > 0
    );
  }

  /**
   * Takes over up to `limit` executions whose lease ran out, for `leaseMs`, and answers their
   * movements with the request that authorized each (so the take-over is logged under it). Raw SQL because the claim must be one statement with `for update skip locked`
   * (instances sharing a database never take the same movement, and none waits on another's
   * lock), which MikroORM's nativeUpdate cannot express.
   */
  async claimDue(
    em: EntityManager,
    now: Date,
    leaseMs: number,
    limit: number,
  ): Promise<Array<{ movementId: string; requestId: string | null }>> {
    const steps = DUE_STEPS.map((step) => `'${step}'`).join(', ');
    const claimed: Array<{ movement_id: string; request_id: string | null }> = await em.execute(
      `update "payments"."payment_executions" set "lease_until" = ?, "lease_token" = gen_random_uuid()::text
       where "movement_id" in (
         select "movement_id" from "payments"."payment_executions"
         where "step" in (${steps}) and "lease_until" <= ?
         order by "lease_until" limit ? for update skip locked)
       returning "movement_id", "request_id"`,
      [new Date(now.getTime() + leaseMs), now, limit],
    );
    return claimed.map((row) => ({ movementId: row.movement_id, requestId: row.request_id }));
  }

  /** The rail credit confirmed while the row is at one of `steps` (engine/rail-credit.ts): nothing is left to do. */
  confirmCreditIn(
    statement: OneStatement,
    movementId: string,
    steps: ExecutionStep[],
    creditBookedAt: Date,
    rrn: string,
    now: Date,
    when: string,
  ): void {
    const changes = { step: 'done' as const, creditBookedAt, rrn, confirmedAt: now, updatedAt: now };
    statement.update('step', PaymentExecutionEntity, { movementId, step: { $in: steps } }, changes, when);
  }

  /** A confirmation arriving after the movement completed on evidence: its RRN is kept. */
  async keepLateConfirmation(tx: EntityManager, movementId: string, rrn: string, now: Date): Promise<boolean> {
    return (
      (await tx.nativeUpdate(
        PaymentExecutionEntity,
        { movementId, confirmedAt: null },
        { rrn, confirmedAt: now, updatedAt: now },
      )) > 0
    );
  }

  /** An operator's decision on a movement that needed attention, if no one decided first. */
  async resolveAttention(em: EntityManager, movementId: string, changes: ExecutionChanges): Promise<boolean> {
    return (await em.nativeUpdate(PaymentExecutionEntity, { movementId, step: 'attention' }, changes)) > 0;
  }

  /** resolveAttention as part `step` of the caller's OneStatement, written only if part `when` changed a row. */
  resolveAttentionIn(statement: OneStatement, movementId: string, changes: ExecutionChanges, when: string): void {
    statement.update<PaymentExecutionEntity>(
      'step',
      PaymentExecutionEntity,
      { movementId, step: 'attention' },
      changes,
      when,
    );
  }
}

/** Stateless: one for everyone. */
export const executions = new ExecutionRepository();
