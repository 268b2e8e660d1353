import { randomUUID } from 'node:crypto';
import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '@gateway/events';
import { newId } from '@gateway/kernel';
import { anyUnclaimed, claimObligations, owedInCycle } from '../obligation/obligation.service';
import { lowerByCycle } from '../net-debit/net-debit.positions';
import { SettlementCycleEntity } from './cycle.entity';
import { netPositions, unbalancedCurrencies } from './netting';
import { SettlementPositionEntity } from './position.entity';
import {
  cycleMove,
  cycleTriggerFor,
  type CycleStatus,
  type CycleTrigger,
  type PositionStatus,
} from './settlement.transitions';

/** A position's key. */
export interface PositionKey {
  cycleId: string;
  bankHandle: string;
  currency: string;
}

/** Columns a runner's record may set. */
export type PositionChanges = Partial<
  Pick<
    SettlementPositionEntity,
    'status' | 'leaseUntil' | 'unknownSince' | 'replays' | 'lastError' | 'coreTransactionId' | 'settledAt'
  >
>;

export interface NewCycle {
  trigger: 'api' | 'schedule';
  /** Its world: a test cycle takes test obligations only and books at test cores; a live one never takes a test obligation. */
  livemode: boolean;
  requestId: string | null;
  /** How long the closing process owns the new positions before the recovery job may take them. */
  leaseMs: number;
  /** Make no cycle when no obligation waits (the scheduled run). */
  skipIfEmpty: boolean;
  /** Make no cycle when the latest one opened less than this long ago (several instances' schedules). */
  skipIfOpenedWithinMs?: number;
}

export type ClosedCycle =
  | { kind: 'closed'; cycle: SettlementCycleEntity; positions: SettlementPositionEntity[] }
  | { kind: 'joined'; cycle: SettlementCycleEntity }
  | { kind: 'skipped' };

/** The position, if it is still as its runner read it: held with its token, at its status and call count (every write of a runner is conditional on this). */
const ownedBy = (key: PositionKey, owner: PositionOwner) => ({
  cycleId: key.cycleId,
  bankHandle: key.bankHandle,
  currency: key.currency as never,
  leaseToken: owner.leaseToken,
  status: owner.status,
  attempts: owner.attempts,
});

/** One lock per world for "a cycle is being made", whatever process makes it. */
const cycleLock = (livemode: boolean): string =>
  livemode ? 'payments:settlement-cycle' : 'payments:settlement-cycle:test';

export const positionReference = (cycleId: string, bankHandle: string, currency: string): string =>
  `${cycleId}:${bankHandle}:${currency}`;

/** What a runner read of its position and expects to find when it writes: its fencing token, the status and the call count. */
export interface PositionOwner {
  leaseToken: string | null;
  status: PositionStatus;
  attempts: number;
}

/**
 * The one writer of payments.settlement_cycles and payments.settlement_positions (CONVENTIONS
 * "Data"). Every position record is conditional on the runner's fencing token and on the status
 * and call count it read, so of two runners (two processes after a take-over) exactly one
 * records, and one that was taken over never does; and it locks its cycle's row first, so the cycle's status is computed from every committed position, never from a
 * snapshot missing a concurrent record.
 */
export class SettlementRepository {
  /**
   * Makes a cycle in one transaction: it takes every unclaimed obligation, nets them, checks
   * that each currency sums to zero (before any call: a failed check rolls the whole cycle back,
   * obligations included), and writes its PENDING positions leased to the caller. Two triggers
   * at once make one cycle: the cycle lock is a transaction-scoped advisory lock, so it holds
   * across processes; a trigger that finds it taken waits for it, then makes a cycle only if
   * obligations still wait (else it answers the cycle just made).
   * Raw SQL for the locks: MikroORM has no call for them.
   */
  async closeCycle(em: EntityManager, input: NewCycle): Promise<ClosedCycle> {
    return em.transactional(async (tx) => {
      const world = input.livemode;
      const [attempt] = await tx.execute<Array<{ locked: boolean }>>(
        `select pg_try_advisory_xact_lock(hashtext(?)) as "locked"`,
        [cycleLock(world)],
      );
      if (!attempt?.locked) {
        await tx.execute(`select pg_advisory_xact_lock(hashtext(?))`, [cycleLock(world)]);
        const latest = await this.latest(tx, world);
        if (latest && !(await anyUnclaimed(tx, world))) return { kind: 'joined', cycle: latest };
      }
      if (input.skipIfEmpty && !(await anyUnclaimed(tx, world))) return { kind: 'skipped' };
      if (input.skipIfOpenedWithinMs !== undefined) {
        const latest = await this.latest(tx, world);
        if (latest && Date.now() - latest.openedAt.getTime() < input.skipIfOpenedWithinMs) return { kind: 'skipped' };
      }

      const now = new Date();
      const cycle = Object.assign(new SettlementCycleEntity(), {
        id: newId('settlementCycle'),
        status: 'OPEN',
        livemode: world,
        trigger: input.trigger,
        requestId: input.requestId,
        obligationCount: 0,
        openedAt: now,
        updatedAt: now,
      });
      await tx.insert(SettlementCycleEntity, cycle);
      cycle.obligationCount = await claimObligations(tx, cycle.id, world);
      // What the cycle takes leaves the banks' positions (net debit caps), in this transaction.
      await lowerByCycle(tx, cycle.id, world, now);
      const nets = netPositions(await owedInCycle(tx, cycle.id));
      const unbalanced = unbalancedCurrencies(nets);
      // Unreachable by netting; refusing here means no bank is ever called on a book that does not balance.
      if (unbalanced.length > 0)
        throw new Error(
          `settlement cycle ${cycle.id} does not sum to zero in ${unbalanced.join(', ')}: nothing was settled`,
        );

      const leaseUntil = new Date(now.getTime() + input.leaseMs);
      const positions = nets.map((net) =>
        Object.assign(new SettlementPositionEntity(), {
          cycleId: cycle.id,
          livemode: world,
          bankHandle: net.bankHandle,
          currency: net.currency,
          netAmount: net.netAmount,
          status: 'PENDING',
          coreReference: positionReference(cycle.id, net.bankHandle, net.currency),
          settlementIban: null,
          attempts: 0,
          leaseUntil,
          // The closing process runs them first: it owns them until a takeover gives them a new token.
          leaseToken: randomUUID(),
          unknownSince: null,
          replays: 0,
          lastError: null,
          coreTransactionId: null,
          settledAt: null,
          createdAt: now,
          updatedAt: now,
        }),
      );
      if (positions.length > 0) await tx.insertMany(SettlementPositionEntity, positions);
      const trigger: CycleTrigger = positions.length > 0 ? 'closed_with_positions' : 'closed_empty';
      const changes = {
        status: cycleMove('OPEN', trigger)!,
        closedAt: now,
        settledAt: positions.length > 0 ? null : now,
        obligationCount: cycle.obligationCount,
        updatedAt: now,
      };
      await tx.nativeUpdate(SettlementCycleEntity, { id: cycle.id, status: 'OPEN' }, changes);
      Object.assign(cycle, changes);
      cycleChanged(tx, cycle.id, world, changes.status, now);
      return { kind: 'closed', cycle, positions };
    });
  }

  /** The newest cycle, untracked. */
  async latest(em: EntityManager, livemode: boolean): Promise<SettlementCycleEntity | null> {
    const [newest] = await em.find(
      SettlementCycleEntity,
      { livemode },
      { orderBy: { openedAt: 'desc', id: 'desc' }, limit: 1, disableIdentityMap: true },
    );
    return newest ?? null;
  }

  /** The row as the database has it now, untracked (the runner updates it in place). */
  findPosition(em: EntityManager, key: PositionKey): Promise<SettlementPositionEntity | null> {
    return em.findOne(
      SettlementPositionEntity,
      { cycleId: key.cycleId, bankHandle: key.bankHandle, currency: key.currency as never },
      { disableIdentityMap: true },
    );
  }

  /** The settlement account a position's every call goes to, fixed once (a replay must be the same movement), by its owner. */
  async fixIban(em: EntityManager, key: PositionKey, owner: PositionOwner, iban: string): Promise<boolean> {
    return (
      (await em.nativeUpdate(
        SettlementPositionEntity,
        { ...ownedBy(key, owner), settlementIban: null },
        { settlementIban: iban },
      )) > 0
    );
  }

  /**
   * Keeps a position whose core call is in flight for its runner until `leaseUntil`, if the runner
   * still holds it (its token) and has not recorded the call yet; false: taken over, or recorded.
   */
  async renewLease(em: EntityManager, key: PositionKey, owner: PositionOwner, leaseUntil: Date): Promise<boolean> {
    return (await em.nativeUpdate(SettlementPositionEntity, ownedBy(key, owner), { leaseUntil })) > 0;
  }

  /**
   * A runner's result after one more core call: recorded only if the runner still holds the
   * position (its token) and it is still at the status and call count the runner read; the cycle
   * moves with it (transition table) in the same transaction.
   */
  async record(
    em: EntityManager,
    key: PositionKey,
    expected: PositionOwner,
    changes: PositionChanges,
    now: Date,
  ): Promise<boolean> {
    return em.transactional(async (tx) => {
      const [cycle] = await tx.execute<Array<{ status: CycleStatus }>>(
        `select "status" from "payments"."settlement_cycles" where "id" = ? for update`,
        [key.cycleId],
      );
      if (!cycle) return false;
      const where = ownedBy(key, expected);
      const updated = await tx.nativeUpdate(SettlementPositionEntity, where, {
        ...changes,
        attempts: raw('attempts + 1'),
        updatedAt: now,
      });
      if (updated === 0) return false;
      const status = await this.moveCycle(tx, key.cycleId, cycle.status, now);
      cycleChanged(tx, key.cycleId, undefined, status, now);
      return true;
    });
  }

  /** The cycle's status as its positions now say, if the transition table allows the move. */
  private async moveCycle(tx: EntityManager, cycleId: string, from: CycleStatus, now: Date): Promise<CycleStatus> {
    const rows: Array<{ status: PositionStatus }> = await tx.execute(
      `select "status" from "payments"."settlement_positions" where "cycle_id" = ?`,
      [cycleId],
    );
    const statuses = rows.map((row) => row.status);
    const to = cycleMove(from, cycleTriggerFor(statuses));
    if (!to || to === from) return from;
    await tx.nativeUpdate(
      SettlementCycleEntity,
      { id: cycleId, status: from },
      { status: to, updatedAt: now, ...(to === 'SETTLED' ? { settledAt: now } : {}) },
    );
    return to;
  }

  /**
   * Takes over up to `limit` unsettled positions whose lease (or retry timer) ran out, for
   * `leaseMs`, each with a new fencing token (the previous owner's writes are refused from now). Raw SQL: one statement with `for update skip locked`, so instances sharing a
   * database never take the same position and none waits on another.
   */
  async claimDue(em: EntityManager, now: Date, leaseMs: number, limit: number): Promise<PositionKey[]> {
    const rows: Array<{ cycle_id: string; bank_handle: string; currency: string }> = await em.execute(
      `update "payments"."settlement_positions" set "lease_until" = ?, "lease_token" = gen_random_uuid()::text
       where ("cycle_id", "bank_handle", "currency") in (
         select "cycle_id", "bank_handle", "currency" from "payments"."settlement_positions"
         where "status" <> 'SETTLED' and "lease_until" <= ?
         order by "lease_until" limit ? for update skip locked)
       returning "cycle_id", "bank_handle", "currency"`,
      [new Date(now.getTime() + leaseMs), now, limit],
    );
    return rows.map((row) => ({ cycleId: row.cycle_id, bankHandle: row.bank_handle, currency: row.currency }));
  }

  /** An operator asks for an unsettled position to be tried again now (same reference); a SETTLED one is left alone. */
  async retryNow(em: EntityManager, key: PositionKey, now: Date): Promise<boolean> {
    const where = {
      cycleId: key.cycleId,
      bankHandle: key.bankHandle,
      currency: key.currency as never,
      status: { $ne: 'SETTLED' as const },
    };
    return (await em.nativeUpdate(SettlementPositionEntity, where, { leaseUntil: now, updatedAt: now })) > 0;
  }
}

/** Stateless: one for everyone. */
export const settlementRepository = new SettlementRepository();

/**
 * A cycle closed, or one of its positions got a core result: said on the bus in the same
 * transaction (internal: no webhook audience), so that the operator console's live cycles and
 * positions follow it (router settlementCyclesUpdated and bankPositionsUpdated, issue 50).
 * Settlement is not a movement's path: one event per cycle and per recorded call.
 */
function cycleChanged(tx: EntityManager, cycleId: string, livemode: boolean | undefined, status: string, now: Date) {
  recordEvent(
    tx,
    {
      kind: 'internal.settlement_cycle.changed',
      aggregateType: 'settlement_cycle',
      aggregateId: cycleId,
      data: { cycle_id: cycleId, status, ...(livemode === undefined ? {} : { livemode }) },
    },
    now,
  );
}
