import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError } from '@gateway/kernel';
import { PaymentSessionEntity } from '../session/session.entity';
import { PaymentExecutionEntity, type ExecutionStep } from './execution.entity';
import { executions } from './execution.repository';

/** What an operator decided after checking the movement at the bank(s). */
export type MovementAction = 'RETRY' | 'REFUND_PAYER' | 'CLOSE';

export interface AttentionCase {
  execution: PaymentExecutionEntity;
  session: PaymentSessionEntity;
}

export const MAX_ATTENTION_PAGE = 100;

/**
 * The "needs attention" list: movements the engine could not settle within outcomeDeadlineMs
 * (or whose reversal a core refused for good). The merchant already has its final answer; what
 * is left is the payer's or payee's money, which only an operator who has checked with the bank
 * can decide about. Each decision is recorded on the execution with the operator's note.
 */
export class AttentionService {
  async list(em: EntityManager, first: number, after: string | null): Promise<{ cases: AttentionCase[]; hasMore: boolean }> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_ATTENTION_PAGE) throw new GatewayError('VALIDATION_ERROR', `first: 1 to ${MAX_ATTENTION_PAGE}`);
    // Sessions only for now: the attention view shows a session beside each case (payment orders' cases: docs/payment-orders.md).
    let where: object = { step: 'attention', kind: 'session' };
    if (after) {
      const cursor = await em.findOne(PaymentExecutionEntity, { sessionId: after, step: 'attention' });
      if (!cursor) throw new GatewayError('VALIDATION_ERROR', 'after: not a cursor of this list');
      where = {
        step: 'attention',
        kind: 'session',
        $or: [{ attentionSince: { $gt: cursor.attentionSince } }, { attentionSince: cursor.attentionSince, sessionId: { $gt: cursor.sessionId } }],
      };
    }
    const rows = await em.find(PaymentExecutionEntity, where, { orderBy: { attentionSince: 'asc', sessionId: 'asc' }, limit: first + 1 });
    const page = rows.slice(0, first);
    const sessions = new Map((await em.find(PaymentSessionEntity, { id: { $in: page.map((row) => row.sessionId) } })).map((s) => [s.id, s]));
    return { cases: page.map((execution) => ({ execution, session: sessions.get(execution.sessionId)! })), hasMore: rows.length > first };
  }

  async count(em: EntityManager): Promise<number> {
    return em.count(PaymentExecutionEntity, { step: 'attention', kind: 'session' });
  }

  /**
   * RETRY: the engine takes the step up again (replays and statements, a fresh deadline).
   * REFUND_PAYER: the operator found the payer's money taken and not delivered: the engine
   * reverses the debit (its own reference, so never twice). CLOSE: settled outside the gateway.
   * The recovery job picks a RETRY or REFUND_PAYER up within seconds.
   */
  async resolve(em: EntityManager, sessionId: string, action: MovementAction, note: string): Promise<AttentionCase> {
    const text = note.trim();
    if (!text || text.length > 500) throw new GatewayError('VALIDATION_ERROR', 'note: 1 to 500 characters saying what was checked');
    const execution = await em.findOne(PaymentExecutionEntity, { sessionId, step: 'attention' });
    if (!execution) throw new GatewayError('MOVEMENT_NOT_FOUND', `session ${sessionId} has no movement needing attention`);
    const now = new Date();
    const next: Record<MovementAction, ExecutionStep> = { RETRY: execution.attentionStep ?? 'done', REFUND_PAYER: 'reverse', CLOSE: 'done' };
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
    if (!(await executions.resolveAttention(em, sessionId, changes))) throw new GatewayError('MOVEMENT_NOT_FOUND', `session ${sessionId} was resolved meanwhile`);
    Object.assign(execution, changes);
    const session = await em.findOneOrFail(PaymentSessionEntity, { id: sessionId });
    return { execution, session };
  }
}
