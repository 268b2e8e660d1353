import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError } from '@gateway/kernel';
import { audit, type AuditedBy } from '@gateway/audit';
import type { Movement, MovementKinds } from '../movement/movement';
import { PaymentExecutionEntity, type ExecutionStep } from './execution.entity';
import { executions } from './execution.repository';

/** What an operator decided after checking the movement at the bank(s). */
export type MovementAction = 'RETRY' | 'REFUND_PAYER' | 'CLOSE';

export interface AttentionCase {
  execution: PaymentExecutionEntity;
  /** The session, mandate charge or payment order the execution moves. */
  movement: Movement;
}

export const MAX_ATTENTION_PAGE = 100;

/**
 * The "needs attention" list: movements the engine could not settle within outcomeDeadlineMs
 * (or whose reversal a core refused for good). The merchant already has its final answer; what
 * is left is the payer's or payee's money, which only an operator who has checked with the bank
 * can decide about. Each decision is recorded on the execution with the operator's note.
 */
export class AttentionService {
  /** `kinds`: how each kind of movement is read (the engine's own registry): every kind's cases are listed. */
  constructor(private readonly kinds: MovementKinds) {}

  async list(
    em: EntityManager,
    first: number,
    after: string | null,
  ): Promise<{ cases: AttentionCase[]; hasMore: boolean }> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_ATTENTION_PAGE)
      throw new GatewayError('VALIDATION_ERROR', `first: 1 to ${MAX_ATTENTION_PAGE}`);
    let where: object = { step: 'attention' };
    if (after) {
      const cursor = await em.findOne(PaymentExecutionEntity, { movementId: after, step: 'attention' });
      if (!cursor) throw new GatewayError('VALIDATION_ERROR', 'after: not a cursor of this list');
      where = {
        step: 'attention',
        $or: [
          { attentionSince: { $gt: cursor.attentionSince } },
          { attentionSince: cursor.attentionSince, movementId: { $gt: cursor.movementId } },
        ],
      };
    }
    const rows = await em.find(PaymentExecutionEntity, where, {
      orderBy: { attentionSince: 'asc', movementId: 'asc' },
      limit: first + 1,
    });
    const page = rows.slice(0, first);
    return {
      cases: await Promise.all(page.map((execution) => this.caseOf(em, execution))),
      hasMore: rows.length > first,
    };
  }

  async count(em: EntityManager): Promise<number> {
    return em.count(PaymentExecutionEntity, { step: 'attention' });
  }

  /**
   * RETRY: the engine takes the step up again (replays and statements, a fresh deadline).
   * REFUND_PAYER: the operator found the payer's money taken and not delivered: the engine
   * reverses the debit (its own reference, so never twice). CLOSE: settled outside the gateway.
   * The recovery job picks a RETRY or REFUND_PAYER up within seconds. The decision and its audit
   * entry commit together.
   */
  async resolve(
    em: EntityManager,
    sessionId: string,
    action: MovementAction,
    note: string,
    by: AuditedBy,
  ): Promise<AttentionCase> {
    const text = note.trim();
    if (!text || text.length > 500)
      throw new GatewayError('VALIDATION_ERROR', 'note: 1 to 500 characters saying what was checked');
    const execution = await em.findOne(PaymentExecutionEntity, { movementId: sessionId, step: 'attention' });
    if (!execution) throw new GatewayError('MOVEMENT_NOT_FOUND', `${sessionId} has no movement needing attention`);
    const now = new Date();
    const next: Record<MovementAction, ExecutionStep> = {
      RETRY: execution.attentionStep ?? 'done',
      REFUND_PAYER: 'reverse',
      CLOSE: 'done',
    };
    const changes = {
      step: next[action],
      resolution: `${action}: ${text}`,
      resolvedAt: now,
      // A retried step starts over: its first call counts as a replay, and the deadline is fresh.
      unknownSince: action === 'RETRY' ? now : null,
      replays: 0,
      leaseUntil: now,
      updatedAt: now,
    };
    await em.transactional(async (tx) => {
      if (!(await executions.resolveAttention(tx, sessionId, changes)))
        throw new GatewayError('MOVEMENT_NOT_FOUND', `${sessionId} was resolved meanwhile`);
      // The resolution as stored ("RETRY: <note>"): the operator's words never stand alone in the log.
      const recorded = {
        step: { from: 'attention', to: changes.step },
        resolution: { from: null, to: changes.resolution },
      };
      audit.record(
        tx,
        { actor: by.actor, action: 'attention.resolved', target: sessionId, changes: recorded },
        by.logger,
      );
    });
    Object.assign(execution, changes);
    return this.caseOf(em, execution);
  }

  private async caseOf(em: EntityManager, execution: PaymentExecutionEntity): Promise<AttentionCase> {
    const movement = await this.kinds[execution.kind].load(em, execution.movementId);
    // The execution is written in the transaction that moved its movement: one without the other is a broken database.
    if (!movement)
      throw new GatewayError('INTERNAL_ERROR', `execution ${execution.movementId} has no ${execution.kind}`);
    return { execution, movement };
  }
}
