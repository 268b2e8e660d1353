import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, newId, type Logger, type Principal } from '@gateway/kernel';
import { audit, type AuditedBy } from '@gateway/audit';
import { SettlementCycleEntity } from './cycle.entity';
import { SettlementPositionEntity } from './position.entity';
import { settlementRepository as repository, type PositionKey } from './settlement.repository';
import type { SettlementRunner } from './settlement.runner';
import type { SettlementSettings } from './settlement.settings';

/** A cycle with the positions its reader may see. */
export interface CycleView {
  cycle: SettlementCycleEntity;
  positions: SettlementPositionEntity[];
}

export const MAX_CYCLE_PAGE = 100;

/**
 * Settlement cycles (API-CONTRACT "Settlement"): made on demand or on schedule, settled by the
 * runner, read by operators (everything) and banks (their own positions).
 */
export class SettlementService {
  /** The trigger this process is serving: a second one meanwhile joins it (one cycle). */
  /** Per world (live, test): a cycle being made in this process, which a second trigger joins. */
  private readonly inFlight = new Map<boolean, Promise<SettlementCycleEntity | null>>();

  constructor(
    private readonly runner: SettlementRunner,
    private readonly settings: SettlementSettings,
    private readonly leaseMs: number,
    private readonly logger: Logger,
    /** Once a cycle's positions had their first booking: net debit caps read their liquidity cover again. */
    private readonly afterCycle?: (root: EntityManager, livemode: boolean, requestId: string) => Promise<unknown>,
  ) {}

  /**
   * Makes a cycle and starts booking its positions; answers the cycle as it stands once they
   * had their first call (or after waitMs), so an operator usually sees it SETTLED. Two triggers
   * at once make one cycle: in this process the second joins the first; across processes the
   * cycle lock does it (SettlementRepository.closeCycle). Nothing to take: the operator gets an
   * empty, SETTLED cycle (the statement that nothing was owed); the schedule makes none.
   */
  async trigger(
    root: EntityManager,
    trigger: 'api' | 'schedule',
    requestId: string | null,
    livemode = true,
  ): Promise<SettlementCycleEntity | null> {
    // A scheduled run that made nothing is no answer for an operator: run again behind it.
    const running = this.inFlight.get(livemode);
    if (running)
      return (await running) ?? (trigger === 'api' ? this.trigger(root, trigger, requestId, livemode) : null);
    const work = this.make(root, trigger, requestId ?? newId('request'), livemode).finally(() =>
      this.inFlight.delete(livemode),
    );
    this.inFlight.set(livemode, work);
    return work;
  }

  private async make(
    root: EntityManager,
    trigger: 'api' | 'schedule',
    requestId: string,
    livemode: boolean,
  ): Promise<SettlementCycleEntity | null> {
    const closed = await repository.closeCycle(root.fork(), {
      trigger,
      livemode,
      requestId,
      leaseMs: this.leaseMs,
      skipIfEmpty: trigger === 'schedule',
      ...(trigger === 'schedule' ? { skipIfOpenedWithinMs: this.settings.intervalMs / 2 } : {}),
    });
    if (closed.kind === 'skipped') return null;
    if (closed.kind === 'joined') return closed.cycle;
    const { cycle, positions } = closed;
    this.logger.info(
      {
        cycle: cycle.id,
        request_id: requestId,
        trigger,
        livemode,
        obligations: cycle.obligationCount,
        positions: positions.length,
      },
      'settlement cycle closed',
    );
    const runs = Promise.all(positions.map((position) => this.runner.run(root, position, requestId)));
    // The settlement accounts moved: what covers a cap is read again once the cores were asked.
    void runs
      .then(() => this.afterCycle?.(root.fork(), livemode, requestId))
      .catch((error: unknown) =>
        this.logger.error({ err: error, cycle: cycle.id, request_id: requestId }, 'after the settlement cycle'),
      );
    await Promise.race([runs, new Promise((resolve) => setTimeout(resolve, this.settings.waitMs).unref())]);
    return cycle;
  }

  /** Takes over positions whose lease ran out (a crashed or stopped process) and retries those due; runs are not awaited. */
  async recoverDue(root: EntityManager, now = new Date(), batch = 20): Promise<PositionKey[]> {
    const room = Math.min(batch, this.runner.capacity());
    if (room <= 0) return [];
    const claimed = await repository.claimDue(root.fork(), now, this.leaseMs, room);
    if (claimed.length === 0) return claimed;
    const cycles = await root
      .fork()
      .find(
        SettlementCycleEntity,
        { id: { $in: [...new Set(claimed.map((key) => key.cycleId))] } },
        { fields: ['requestId'] },
      );
    const requestOf = new Map(cycles.map((cycle) => [cycle.id, cycle.requestId]));
    for (const key of claimed) void this.runner.run(root, key, requestOf.get(key.cycleId) ?? null, true);
    return claimed;
  }

  /** One cycle for its reader: an operator sees every position; a bank only its own, and only a cycle it is in. */
  async find(em: EntityManager, id: string, reader: Principal): Promise<CycleView> {
    const cycle = await em.findOne(SettlementCycleEntity, { id });
    if (!cycle) throw new GatewayError('SETTLEMENT_CYCLE_NOT_FOUND', `no settlement cycle ${id}`);
    if (reader.kind === 'admin') return { cycle, positions: await this.positionsOf(em, [id]) };
    const bank = reader.id!;
    const positions = await this.positionsOf(em, [id], bank);
    if (positions.length === 0 && !(await this.tookObligationsOf(em, id, bank))) {
      throw new GatewayError('FORBIDDEN', `bank ${bank} has no position in settlement cycle ${id}`);
    }
    return { cycle, positions };
  }

  /** Newest first (operators). */
  async list(
    em: EntityManager,
    first: number,
    after: string | null,
  ): Promise<{ cycles: CycleView[]; hasMore: boolean }> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_CYCLE_PAGE)
      throw new GatewayError('VALIDATION_ERROR', `first: 1 to ${MAX_CYCLE_PAGE}`);
    let where: object = {};
    if (after) {
      const cursor = await em.findOne(SettlementCycleEntity, { id: after });
      if (!cursor) throw new GatewayError('VALIDATION_ERROR', 'after: not a cursor of this list');
      where = { $or: [{ openedAt: { $lt: cursor.openedAt } }, { openedAt: cursor.openedAt, id: { $lt: cursor.id } }] };
    }
    const rows = await em.find(SettlementCycleEntity, where, {
      orderBy: { openedAt: 'desc', id: 'desc' },
      limit: first + 1,
    });
    const page = rows.slice(0, first);
    const positions = await this.positionsOf(
      em,
      page.map((cycle) => cycle.id),
    );
    return {
      cycles: page.map((cycle) => ({
        cycle,
        positions: positions.filter((position) => position.cycleId === cycle.id),
      })),
      hasMore: rows.length > first,
    };
  }

  /**
   * An operator's "try this position again now" (same reference): the recovery job calls it
   * within seconds; the retry and its audit entry commit together. A SETTLED position is answered
   * as it is: it is never sent again, and nothing was retried (no entry).
   */
  async retryPosition(em: EntityManager, key: PositionKey, by: AuditedBy): Promise<SettlementPositionEntity> {
    return em.transactional(async (tx) => {
      const before = await repository.findPosition(tx, key);
      if (!before)
        throw new GatewayError(
          'SETTLEMENT_CYCLE_NOT_FOUND',
          `no position of ${key.bankHandle} in ${key.currency} in settlement cycle ${key.cycleId}`,
        );
      const now = new Date();
      if (await repository.retryNow(tx, key, now)) {
        // The position's lease is also its retry timer: the retry brings its next attempt forward to now.
        const changes = { next_attempt_at: { from: before.leaseUntil.toISOString(), to: now.toISOString() } };
        audit.record(
          tx,
          { actor: by.actor, action: 'settlement.retried', target: before.coreReference, changes },
          by.logger,
        );
      }
      return (await repository.findPosition(tx, key))!;
    });
  }

  private positionsOf(em: EntityManager, cycleIds: string[], bankHandle?: string): Promise<SettlementPositionEntity[]> {
    if (cycleIds.length === 0) return Promise.resolve([]);
    return em.find(
      SettlementPositionEntity,
      { cycleId: { $in: cycleIds }, ...(bankHandle ? { bankHandle } : {}) },
      { orderBy: { currency: 'asc', bankHandle: 'asc' } },
    );
  }

  /** A bank whose net came to zero has no position but is in the cycle all the same. */
  private async tookObligationsOf(em: EntityManager, cycleId: string, bank: string): Promise<boolean> {
    const rows: unknown[] = await em.execute(
      `select 1 from "payments"."interbank_obligations" where "settlement_cycle_id" = ? and ("debtor_bank" = ? or "creditor_bank" = ?) limit 1`,
      [cycleId, bank, bank],
    );
    return rows.length > 0;
  }
}
