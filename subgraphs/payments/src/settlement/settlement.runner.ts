import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import { settlementIbanFor, type Directory } from '@gateway/federation';
import type { Logger } from '@gateway/kernel';
import type { EngineSettings } from '../engine/engine.settings';
import { MovementSettler, type MovementCall } from '../engine/settle';
import { holdLease, type HeldLease } from '../lease/lease';
import type { SettlementPositionEntity } from './position.entity';
import {
  settlementRepository as positions,
  type PositionChanges,
  type PositionKey,
  type PositionOwner,
} from './settlement.repository';
import { retryPause, type SettlementSettings } from './settlement.settings';
import { positionMove } from './settlement.transitions';

/** Positions one process calls at once (the recovery job takes no more). */
const MAX_CONCURRENT_RUNS = 32;

/**
 * Books settlement positions at the banks' cores with the payment engine's guarantees: one core
 * reference per position (`stl_…:<bank>:<currency>`) on every call, so the core deduplicates a
 * retry, a replay or a take-over after a crash; no call inside a transaction; a short lease
 * renewed while the call runs (lease/lease.ts), so a slow core is not called twice by two
 * processes while a dead process's position is taken over within seconds; each result recorded
 * only by the runner that still holds the position (its fencing token) and whose view of the row
 * is still current. The MovementSettler decides what a call proves: an unknown outcome is
 * replayed by the same reference and then reconciled against the settlement account's
 * statement, never counted as booked or refused on a guess. Unlike a payment, nobody waits for
 * a final answer, so a position is never given up: it stays PENDING (unknown, core down) or
 * FAILED (refused) and is tried again with backoff.
 */
export class SettlementRunner {
  private readonly running = new Map<string, Promise<void>>();
  private readonly settler: MovementSettler;
  private stopped = false;

  constructor(
    private readonly directory: Directory,
    cores: BankCorePool,
    private readonly engine: EngineSettings,
    private readonly settings: SettlementSettings,
    private readonly logger: Logger,
  ) {
    this.settler = new MovementSettler(directory, cores, engine, logger);
  }

  /**
   * One call for the position (joined if this process already runs it); resolves when it is
   * recorded. `takenOver`: the recovery job has just claimed it with a new token, so a run of this
   * process still in flight lost its lease (its renewals did not get through) and its result will
   * be refused: a new run starts rather than joining it, or the claim would lapse unused.
   */
  run(root: EntityManager, key: PositionKey, requestId: string | null, takenOver = false): Promise<void> {
    const id = `${key.cycleId}:${key.bankHandle}:${key.currency}`;
    const current = this.running.get(id);
    if (current && !takenOver) return current;
    const run: Promise<void> = this.once(root.fork(), key, requestId)
      .catch((error) =>
        this.logger.error(
          { err: error, position: id, request_id: requestId },
          'settlement position run crashed; the recovery job will resume it',
        ),
      )
      .finally(() => {
        if (this.running.get(id) === run) this.running.delete(id);
      });
    this.running.set(id, run);
    return run;
  }

  capacity(): number {
    return MAX_CONCURRENT_RUNS - this.running.size;
  }

  /** After stop() nothing is recorded: like a killed process, the lease lets another one resume. */
  stop(): void {
    this.stopped = true;
  }

  private async once(em: EntityManager, key: PositionKey, requestId: string | null): Promise<void> {
    const position = await positions.findPosition(em, key);
    if (!position || position.status === 'SETTLED' || this.stopped) return;
    const lease = this.keepLease(em, position);
    try {
      await this.call(em, position, requestId);
    } finally {
      await lease.release();
    }
  }

  /**
   * While the position's call runs (the bank's routing, then the core), its lease is renewed, so
   * it can be short without a slow core being called again by another process meanwhile.
   */
  private keepLease(root: EntityManager, position: SettlementPositionEntity): HeldLease {
    if (!position.leaseToken) return { lost: () => false, release: () => Promise.resolve() };
    const owner = this.ownerOf(position);
    const log = { position: position.coreReference, bank: position.bankHandle };
    return holdLease({
      leaseMs: this.engine.leaseMs,
      idle: () => this.stopped,
      renew: (until) => positions.renewLease(root.fork(), position, owner, until),
      // Not renewed: this run recorded its result meanwhile, or the position changed hands.
      confirmLost: async () => (await positions.findPosition(root.fork(), position))?.leaseToken !== owner.leaseToken,
      onLost: () =>
        this.logger.warn(
          log,
          'settlement position taken over by another process: its result here will not be recorded',
        ),
      onError: (error) =>
        this.logger.warn({ ...log, err: error }, 'settlement position lease not renewed (database); the call goes on'),
    });
  }

  private ownerOf(position: SettlementPositionEntity): PositionOwner {
    return { leaseToken: position.leaseToken, status: position.status, attempts: position.attempts };
  }

  private async call(em: EntityManager, position: SettlementPositionEntity, requestId: string | null): Promise<void> {
    const iban = position.settlementIban ?? (await this.fixIban(em, position, requestId));
    if (!iban) return;
    const log = { position: position.coreReference, bank: position.bankHandle, request_id: requestId };
    const net = position.netAmount;
    const magnitude = net < 0n ? -net : net;
    if (magnitude > BigInt(Number.MAX_SAFE_INTEGER)) {
      // JSON numbers past 2^53 are not exact at every core: refused here, for an operator to split.
      return this.record(em, position, 'refused', {
        lastError: `net amount ${net} is beyond what a core call carries exactly`,
      });
    }
    const movement: MovementCall = {
      bank: position.bankHandle,
      livemode: position.livemode,
      iban,
      reference: position.coreReference,
      amount: Number(magnitude),
      currency: position.currency,
      direction: net > 0n ? 'CREDIT' : 'DEBIT',
      description: `Net settlement ${position.coreReference}`,
    };
    const settled = await this.settler.settle(movement, {
      requestId,
      unknownSince: position.unknownSince,
      replays: position.replays,
      createdAt: position.createdAt,
    });
    if (settled.kind === 'booked') {
      this.logger.info({ ...log, duplicate: settled.movement?.duplicate ?? null }, 'settlement position booked');
      return this.record(em, position, 'booked', {
        unknownSince: null,
        replays: 0,
        lastError: null,
        settledAt: new Date(),
        coreTransactionId: settled.movement?.transactionId ?? null,
      });
    }
    if (settled.kind === 'refused' && position.unknownSince !== null) {
      // Replays of an unknown outcome, and the statement shows nothing booked: the core was failing,
      // not refusing. Still PENDING; the next call is a first call again.
      this.logger.warn(
        { ...log, code: settled.code, detail: settled.detail },
        'settlement position not booked (statement reconciled); sent again later',
      );
      return this.record(em, position, 'later', {
        unknownSince: null,
        replays: 0,
        lastError: `${settled.code}: ${settled.detail}`,
      });
    }
    if (settled.kind === 'refused') {
      this.logger.warn(
        { ...log, code: settled.code, detail: settled.detail },
        'settlement position refused by the core; retried later',
      );
      return this.record(em, position, 'refused', {
        unknownSince: null,
        replays: 0,
        lastError: `${settled.code}: ${settled.detail}`,
      });
    }
    if (settled.kind === 'given_up') {
      // Past the engine's outcome deadline: still unknown. Keep replaying and reading the statement.
      this.logger.error({ ...log, detail: settled.detail }, 'settlement position outcome still unknown');
      return this.record(em, position, 'later', {
        unknownSince: position.unknownSince ?? new Date(),
        replays: position.replays + 1,
        lastError: settled.detail,
      });
    }
    this.logger.warn(
      { ...log, code: settled.code, detail: settled.detail },
      'settlement position not booked yet; retried later',
    );
    return this.record(em, position, 'later', { ...settled.unknown, lastError: `${settled.code}: ${settled.detail}` });
  }

  /** The bank's settlement account in the position's currency, from its registration, fixed on the position before the first call. */
  private async fixIban(
    em: EntityManager,
    position: SettlementPositionEntity,
    requestId: string | null,
  ): Promise<string | null> {
    try {
      // A position is owed whatever the bank's status: a suspended bank's positions settle too.
      const routing = await this.directory.bankInFlight({ handle: position.bankHandle }, requestId ?? undefined);
      if (this.stopped) return null;
      const iban = settlementIbanFor(routing, position.currency);
      if (await positions.fixIban(em, position, this.ownerOf(position), iban)) return iban;
      return (await positions.findPosition(em, position))?.settlementIban ?? null;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        { position: position.coreReference, err: error },
        'settlement account of the bank unavailable; retried later',
      );
      await this.record(em, position, 'later', { lastError: `bank routing unavailable: ${detail}` });
      return null;
    }
  }

  /**
   * Records a call's result: booked (SETTLED), refused (FAILED, tried again after a pause), or
   * later (still PENDING, or back to PENDING from FAILED when a retry's outcome is unknown).
   */
  private async record(
    em: EntityManager,
    position: SettlementPositionEntity,
    result: 'booked' | 'refused' | 'later',
    changes: PositionChanges,
  ): Promise<void> {
    if (this.stopped) return;
    const now = new Date();
    let status = position.status;
    if (result !== 'later') status = positionMove(position.status, result) ?? position.status;
    else if (position.status === 'FAILED' && changes.unknownSince)
      status = positionMove('FAILED', 'retried_unknown') ?? 'FAILED';
    const pause = retryPause(position.attempts + 1, this.engine.retryDelayMs, this.settings.retryMaxMs);
    const update: PositionChanges = {
      ...changes,
      status,
      leaseUntil: new Date(now.getTime() + (status === 'SETTLED' ? 0 : pause)),
    };
    if (!(await positions.record(em, position, this.ownerOf(position), update, now))) {
      this.logger.warn(
        { position: position.coreReference, bank: position.bankHandle, status },
        'settlement position result not recorded: another process holds the position now',
      );
    }
  }
}
