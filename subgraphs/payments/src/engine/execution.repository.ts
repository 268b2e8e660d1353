import { randomUUID } from 'node:crypto';
import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import { ACTIVE_STEPS, PaymentExecutionEntity, type ExecutionStep } from './execution.entity';

/** Columns a step's record may set (the step itself, its outcome, its lease). */
export type ExecutionChanges = Partial<Omit<PaymentExecutionEntity, 'sessionId' | 'attempts' | 'createdAt'>>;

/** What checkout knows when the payer's OTP is accepted (kind session), or a payment order's request (kind payment_order). */
export type NewExecution = Pick<PaymentExecutionEntity, 'sessionId' | 'payerType' | 'payerValue' | 'debtorIban' | 'leaseUntil' | 'requestId'> &
  Partial<Pick<PaymentExecutionEntity, 'kind' | 'authorizationHash'>>;

/** Steps at which a rail credit can be confirmed: being sent, or sent. */
export const CONFIRMABLE_STEPS = ['credit', 'confirm'] as const;

/**
 * The one writer of payments.payment_executions (CONVENTIONS "Data": one owner per table). The
 * engine, the recovery job, checkout, the credit-confirmed callback and the operator's
 * resolution all move an execution through here. Every write is conditional on the step the
 * caller expects, so of two writers (two processes, or the engine and the callback) exactly one
 * records; each method answers whether it did. Writes take the caller's EntityManager, so they
 * join the caller's transaction (a step's record commits with the session's move and its
 * obligation, or not at all).
 */
export class ExecutionRepository {
  /** The row as the database has it now, untracked (the engine updates it in place). */
  find(em: EntityManager, sessionId: string): Promise<PaymentExecutionEntity | null> {
    return em.findOne(PaymentExecutionEntity, { sessionId }, { disableIdentityMap: true });
  }

  /** The row of a session just claimed for payment (in the claim's transaction): the debit is next. */
  create(tx: EntityManager, fields: NewExecution, now: Date): PaymentExecutionEntity {
    return tx.create(PaymentExecutionEntity, this.newRow(fields, now));
  }

  /** The same row, not persisted: for a claim written as one statement (`statement.insert`). */
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

  /**
   * A step's result (one more core call), recorded only if the row is still at `from` and, for the
   * engine, still held with its lease token (null: the caller holds no lease, e.g. an operator).
   */
  async recordStep(em: EntityManager, sessionId: string, from: ExecutionStep, changes: ExecutionChanges, leaseToken: string | null = null): Promise<boolean> {
    const statement = new OneStatement(em);
    this.recordStepIn(statement, sessionId, from, changes, leaseToken);
    return (await statement.run()).step! > 0;
  }

  /** recordStep as a part (`step`) of the caller's OneStatement, written only if part `when` changed a row, when given. */
  recordStepIn(statement: OneStatement, sessionId: string, from: ExecutionStep, changes: ExecutionChanges, leaseToken: string | null, when?: string): void {
    const owned = leaseToken === null ? {} : { leaseToken };
    statement.update('step', PaymentExecutionEntity, { sessionId, step: from, ...owned }, { ...changes, attempts: raw('attempts + 1') }, when);
  }

  /**
   * Keeps the lease of a step still being worked on (a core call in flight) for another `leaseMs`,
   * if this owner still holds it; false: it was taken over, and the owner must stop.
   */
  async renewLease(em: EntityManager, sessionId: string, leaseToken: string, step: ExecutionStep, leaseUntil: Date): Promise<boolean> {
    return (await em.nativeUpdate(PaymentExecutionEntity, { sessionId, leaseToken, step }, { leaseUntil })) > 0;
  }

  /** A rail credit sent again while its confirmation is awaited: the next re-send is due at `next`. */
  async rescheduleConfirm(em: EntityManager, sessionId: string, next: Date, now: Date, leaseToken: string | null = null): Promise<boolean> {
    const owned = leaseToken === null ? {} : { leaseToken };
    return (await em.nativeUpdate(PaymentExecutionEntity, { sessionId, step: 'confirm', ...owned }, { leaseUntil: next, attempts: raw('attempts + 1'), updatedAt: now })) > 0;
  }

  /**
   * Takes over up to `limit` executions whose lease ran out, for `leaseMs`, and answers their
   * sessions with the request that authorized each (so the take-over is logged under it). Raw SQL because the claim must be one statement with `for update skip locked`
   * (instances sharing a database never take the same session, and none waits on another's
   * lock), which MikroORM's nativeUpdate cannot express.
   */
  async claimDue(em: EntityManager, now: Date, leaseMs: number, limit: number): Promise<Array<{ sessionId: string; requestId: string | null }>> {
    const steps = ACTIVE_STEPS.map((step) => `'${step}'`).join(', ');
    const claimed: Array<{ session_id: string; request_id: string | null }> = await em.execute(
      `update "payments"."payment_executions" set "lease_until" = ?, "lease_token" = gen_random_uuid()::text
       where "session_id" in (
         select "session_id" from "payments"."payment_executions"
         where "step" in (${steps}) and "lease_until" <= ?
         order by "lease_until" limit ? for update skip locked)
       returning "session_id", "request_id"`,
      [new Date(now.getTime() + leaseMs), now, limit],
    );
    return claimed.map((row) => ({ sessionId: row.session_id, requestId: row.request_id }));
  }

  /**
   * The creditor bank confirmed the rail credit: nothing is left to do. The callback may overtake
   * the engine's own record of the credit: the confirmation proves it was booked. A part (`step`)
   * of the caller's OneStatement, written only if part `when` changed a row.
   */
  confirmCreditIn(statement: OneStatement, sessionId: string, creditBookedAt: Date, rrn: string, now: Date, when: string): void {
    const changes = { step: 'done' as const, creditBookedAt, rrn, confirmedAt: now, updatedAt: now };
    statement.update('step', PaymentExecutionEntity, { sessionId, step: { $in: [...CONFIRMABLE_STEPS] } }, changes, when);
  }

  /** A confirmation arriving after the session completed on evidence: its RRN is kept. */
  async keepLateConfirmation(tx: EntityManager, sessionId: string, rrn: string, now: Date): Promise<boolean> {
    return (await tx.nativeUpdate(PaymentExecutionEntity, { sessionId, confirmedAt: null }, { rrn, confirmedAt: now, updatedAt: now })) > 0;
  }

  /** An operator's decision on a movement that needed attention, if no one decided first. */
  async resolveAttention(em: EntityManager, sessionId: string, changes: ExecutionChanges): Promise<boolean> {
    return (await em.nativeUpdate(PaymentExecutionEntity, { sessionId, step: 'attention' }, changes)) > 0;
  }
}

/** Stateless: one for everyone. */
export const executions = new ExecutionRepository();
