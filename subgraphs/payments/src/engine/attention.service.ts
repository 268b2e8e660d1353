import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import { wakeOutboxRelay } from '@gateway/events';
import { GatewayError } from '@gateway/kernel';
import { audit, type AuditedBy } from '@gateway/audit';
import { isHeld, OUTCOME_UNKNOWN } from '../movement/held-outcome';
import type { HeldFinding, Movement, MovementKinds } from '../movement/movement';
import { obligateIn, releaseIn } from '../net-debit/net-debit.positions';
import { PaymentExecutionEntity, type ExecutionStep } from './execution.entity';
import { executions, type ExecutionChanges } from './execution.repository';

/** What an operator decided after checking the movement at the bank(s). */
export type MovementAction = 'RETRY' | 'REFUND_PAYER' | 'CLOSE';

/** What an operator found at the cores about a held refund (HeldFinding), as the resolution names it. */
export type HeldFindingAction = 'CREDITED' | 'NOT_CREDITED';

const FINDINGS: Record<HeldFindingAction, HeldFinding> = { CREDITED: 'credited', NOT_CREDITED: 'not_credited' };

/** Steps at which the engine had sent the payee's credit when it handed the movement over. */
const CREDIT_SENT: ReadonlySet<ExecutionStep> = new Set(['credit', 'confirm']);

function checkedNote(note: string): string {
  const text = note.trim();
  if (!text || text.length > 500)
    throw new GatewayError('VALIDATION_ERROR', 'note: 1 to 500 characters saying what was checked');
  return text;
}

const notHeld = (detail: string) => new GatewayError('REFUND_NOT_HELD', detail);

export interface AttentionCase {
  execution: PaymentExecutionEntity;
  /** The session, mandate charge, payment order, VRP payment or refund the execution moves. */
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
    const text = checkedNote(note);
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
      // Closed by the operator: the movement is finished, so is what it reserved of its debtor's position.
      if (changes.step === 'done') {
        const statement = new OneStatement(tx);
        releaseIn(statement, sessionId, now);
        await statement.run();
      }
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

  /**
   * An operator's finding on a refund held at CBS_OUTCOME_UNKNOWN, after checking the cores
   * (issue 46). CREDITED: the payer has the money; the refund is COMPLETED (refund.completed), its
   * amount stays refunded, the execution is done, and a rail refund's interbank obligation is
   * recorded (once). The payer's credit must have been sent (the engine stopped at credit or
   * confirm): a refund stopped at the merchant's debit never reached the payer (VALIDATION_ERROR).
   * NOT_CREDITED: the refund FAILS for good with CBS_ERROR (refund.failed) and its amount is free
   * to refund again, at once; the merchant's debit is then given back by the engine (reversed,
   * reference `<id>:reversal`, once, when it was seen booked; established by replay or statement
   * first when it was not known). The finding, the refund's move, its event and the audit entry
   * commit together. The same finding sent again answers the refund as it is (idempotent);
   * anything but a held refund is REFUND_NOT_HELD (409).
   */
  async settleHeld(
    em: EntityManager,
    movementId: string,
    action: HeldFindingAction,
    note: string,
    by: AuditedBy,
    raced = false,
  ): Promise<AttentionCase> {
    const text = checkedNote(note);
    const finding = FINDINGS[action];
    const found = await this.heldCase(em, movementId, action);
    if (!found.held) return found.answer;
    const { execution, movement } = found.answer;
    if (finding === 'credited' && !CREDIT_SENT.has(execution.attentionStep ?? 'attention'))
      throw new GatewayError(
        'VALIDATION_ERROR',
        `action: ${movementId} stopped at the merchant's debit, so its credit was never sent: the payer cannot have been credited by it`,
      );
    const now = new Date();
    // Not credited: the merchant's money comes back through the engine (the recovery job resumes the step).
    const next: ExecutionStep =
      finding === 'credited'
        ? 'done'
        : execution.debitBookedAt
          ? 'reverse'
          : execution.attentionStep === 'resolve_debit'
            ? 'resolve_debit'
            : 'done';
    const changes: ExecutionChanges = {
      step: next,
      resolution: `${action}: ${text}`,
      resolvedAt: now,
      unknownSince: next === 'resolve_debit' ? now : null,
      replays: 0,
      leaseUntil: now,
      updatedAt: now,
      ...(finding === 'credited' && !execution.creditBookedAt ? { creditBookedAt: now } : {}),
    };
    const kind = this.kinds[execution.kind];
    const moved = await em.transactional(async (tx) => {
      // One statement: the refund locked while still held, the execution's resolution, the
      // refund's move with its event and release, a rail credit's obligation; all or nothing.
      const statement = new OneStatement(tx);
      statement.lock('held', kind.entity, { id: movementId, status: 'FAILED', failureCode: OUTCOME_UNKNOWN });
      executions.resolveAttentionIn(statement, movementId, changes, 'held');
      const update = kind.settleHeldIn!(statement, movement, finding, now, 'step');
      if (finding === 'credited') obligateIn(statement, movement, now, 'moved');
      // Never credited and nothing taken: the movement ends here, and so does its reservation.
      else if (next === 'done') releaseIn(statement, movementId, now, 'moved');
      if (!(await statement.run()).moved) return undefined;
      const recorded = {
        step: { from: 'attention', to: next },
        resolution: { from: null, to: changes.resolution },
        status: { from: movement.status, to: update.status ?? movement.status },
        failure_code: { from: OUTCOME_UNKNOWN, to: update.failureCode ?? null },
      };
      audit.record(
        tx,
        { actor: by.actor, action: 'attention.resolved', target: movementId, changes: recorded },
        by.logger,
      );
      return update;
    });
    // Settled meanwhile by another request: the same finding is answered, another refused.
    if (!moved) {
      if (raced) throw notHeld(`${movementId} was resolved meanwhile`);
      return this.settleHeld(em, movementId, action, note, by, true);
    }
    wakeOutboxRelay(em);
    Object.assign(execution, changes);
    Object.assign(movement, moved);
    return { execution, movement };
  }

  /**
   * The case of a held refund; `held: false` with the case as it is when the same finding was
   * recorded before (a retry). Refused: MOVEMENT_NOT_FOUND for an unknown id, REFUND_NOT_HELD for
   * a movement of another kind, a refund not held, or one settled otherwise.
   */
  private async heldCase(
    em: EntityManager,
    movementId: string,
    action: HeldFindingAction,
  ): Promise<{ held: boolean; answer: AttentionCase }> {
    const execution = await executions.find(em.fork(), movementId);
    if (!execution) throw new GatewayError('MOVEMENT_NOT_FOUND', `${movementId} has no movement`);
    if (!this.kinds[execution.kind].settleHeldIn)
      throw notHeld(`${movementId} is a ${execution.kind}: ${action} settles a refund held at ${OUTCOME_UNKNOWN}`);
    const answer = await this.caseOf(em.fork(), execution);
    if (execution.step === 'attention' && isHeld(answer.movement)) return { held: true, answer };
    if (execution.resolution?.startsWith(`${action}: `)) return { held: false, answer };
    throw notHeld(
      `${movementId} is ${answer.movement.status}${answer.movement.failureCode ? ` (${answer.movement.failureCode})` : ''}` +
        (execution.resolution ? `, resolved as ${execution.resolution.split(':')[0]}` : '') +
        `: only a refund held at ${OUTCOME_UNKNOWN} on the attention list takes ${action}`,
    );
  }

  private async caseOf(em: EntityManager, execution: PaymentExecutionEntity): Promise<AttentionCase> {
    const movement = await this.kinds[execution.kind].load(em, execution.movementId);
    // The execution is written in the transaction that moved its movement: one without the other is a broken database.
    if (!movement)
      throw new GatewayError('INTERNAL_ERROR', `execution ${execution.movementId} has no ${execution.kind}`);
    return { execution, movement };
  }
}
