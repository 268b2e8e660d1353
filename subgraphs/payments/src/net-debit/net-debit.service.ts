import type { EntityManager } from '@mikro-orm/postgresql';
import { audit, type AuditedBy } from '@gateway/audit';
import type { BankCorePool } from '@gateway/bank-core-client';
import { settlementIbanFor, type Directory } from '@gateway/federation';
import { formatMoney, GatewayError, parseInput, type Currency, type Logger } from '@gateway/kernel';
import { everyPosition, readPositions, writeCap, type PositionRow } from './net-debit.positions';
import { DEFAULT_ALERT_THRESHOLDS, modeRules, netDebitCapRules } from './net-debit.rules';

/** A cap as set, with the bank's position now: whether new movements are refused until it falls. */
export interface CapAnswer {
  position: PositionRow;
  /** The cap is below the current position: allowed, and every new movement of the bank is refused until it falls. */
  belowPosition: boolean;
}

/**
 * Operators' net debit caps and everyone's reading of positions (issue 48). The caps live on the
 * position rows the engine reserves on; setting one never touches the position, so a cap below it
 * is allowed and said.
 */
export class NetDebitService {
  constructor(
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
  ) {}

  async setCap(
    em: EntityManager,
    bankHandle: string,
    input: {
      currency: string;
      mode: string;
      netDebitCap: unknown;
      alertThresholds?: unknown;
      liquidityCover?: unknown;
    },
    by: AuditedBy,
  ): Promise<CapAnswer> {
    const request = parseInput(netDebitCapRules, input);
    const bank = await this.directory.bankInFlight({ handle: bankHandle }, by.actor.requestId);
    const livemode = request.mode === 'live';
    const currency = request.currency as Currency;
    if (request.liquidityCover) await this.assertCovered(bank, currency, livemode, request.netDebitCap, by);
    return em.transactional(async (tx) => {
      const before = (await readPositions(tx, bankHandle, { currency, livemode, lock: true }))[0];
      const setting = {
        bankHandle,
        currency,
        livemode,
        netDebitCap: BigInt(request.netDebitCap),
        alertThresholds: [...new Set(request.alertThresholds ?? DEFAULT_ALERT_THRESHOLDS)].sort((a, b) => a - b),
        liquidityCover: request.liquidityCover ?? false,
      };
      await writeCap(tx, setting, new Date());
      audit.record(
        tx,
        {
          actor: by.actor,
          action: 'bank.net_debit_cap_set',
          target: bankHandle,
          changes: {
            currency: { to: currency },
            mode: { to: request.mode },
            net_debit_cap: { from: before?.netDebitCap?.toString() ?? null, to: setting.netDebitCap.toString() },
            alert_thresholds: { from: before?.alertThresholds ?? null, to: setting.alertThresholds },
          },
        },
        by.logger,
      );
      const [position] = await readPositions(tx, bankHandle, { currency, livemode });
      return { position: position!, belowPosition: position!.exposure > setting.netDebitCap };
    });
  }

  /** No cap in that currency and world (today's behaviour); the position is kept. Idempotent. */
  async removeCap(em: EntityManager, bankHandle: string, input: { currency: string; mode: string }, by: AuditedBy) {
    const request = parseInput(modeRules, input);
    const livemode = request.mode === 'live';
    const currency = request.currency as Currency;
    await em.transactional(async (tx) => {
      const [before] = await readPositions(tx, bankHandle, { currency, livemode, lock: true });
      if (!before || before.netDebitCap === null) return;
      await writeCap(
        tx,
        {
          bankHandle,
          currency,
          livemode,
          netDebitCap: null,
          alertThresholds: before.alertThresholds,
          liquidityCover: false,
        },
        new Date(),
      );
      audit.record(
        tx,
        {
          actor: by.actor,
          action: 'bank.net_debit_cap_removed',
          target: bankHandle,
          changes: {
            currency: { to: currency },
            mode: { to: request.mode },
            net_debit_cap: { from: before.netDebitCap.toString(), to: null },
          },
        },
        by.logger,
      );
    });
  }

  /**
   * Mojaloop's second check (4001): a cap declared covered by the bank's liquidity may not exceed
   * the balance of its settlement account for the currency, read now from its core (of the
   * cap's world). A core that does not answer refuses the cap (its CBS_* error): never a cover
   * taken on trust.
   */
  private async assertCovered(
    bank: Awaited<ReturnType<Directory['bankInFlight']>>,
    currency: Currency,
    livemode: boolean,
    cap: number,
    by: AuditedBy,
  ): Promise<void> {
    const iban = settlementIbanFor(bank, currency);
    const requestId = by.actor.requestId;
    const account = await this.cores
      .for(bank, livemode ? 'live' : 'test')
      .getAccount(iban, requestId ? { requestId } : {});
    if (account.currency !== currency || cap > account.balance)
      throw new GatewayError(
        'NET_DEBIT_CAP_ABOVE_LIQUIDITY',
        `net_debit_cap: ${formatMoney(cap, currency)} is above the ${formatMoney(account.currency === currency ? account.balance : 0, currency)} of ${bank.handle}'s settlement account ${iban}`,
      );
  }

  /**
   * The cover read again at each settlement cycle (API-CONTRACT: "on demand and at each cycle"):
   * a covered cap above what the bank's settlement account now holds is lowered to that balance,
   * as setting it now would be refused. Never raised (raising a cap is the operator's call), and a
   * core that does not answer leaves the cap as it is (logged). Audited as the settlement
   * service's act, with the reason. Answers how many caps were lowered.
   */
  async recheckCovers(em: EntityManager, livemode: boolean, requestId: string, logger: Logger): Promise<number> {
    const covered = (await everyPosition(em)).filter(
      (row) => row.livemode === livemode && row.liquidityCover && row.netDebitCap !== null,
    );
    let lowered = 0;
    for (const row of covered) {
      const balance = await this.coverOf(row, requestId, logger);
      if (balance === null || balance >= row.netDebitCap!) continue;
      const changed = await em.transactional(async (tx) => {
        const [now] = await readPositions(tx, row.bankHandle, { currency: row.currency, livemode, lock: true });
        if (!now?.liquidityCover || now.netDebitCap === null || now.netDebitCap <= balance) return false;
        await writeCap(tx, { ...now, netDebitCap: balance }, new Date());
        audit.record(
          tx,
          {
            actor: { kind: 'service', id: 'settlement', requestId },
            action: 'bank.net_debit_cap_set',
            target: row.bankHandle,
            changes: {
              currency: { to: row.currency },
              mode: { to: livemode ? 'live' : 'test' },
              net_debit_cap: { from: now.netDebitCap.toString(), to: balance.toString() },
              reason: {
                to: `liquidity cover: the settlement account holds ${formatMoney(balance, row.currency)}, below the cap of ${formatMoney(now.netDebitCap, row.currency)}`,
              },
            },
          },
          logger,
        );
        return true;
      });
      if (changed) {
        lowered += 1;
        logger.warn(
          {
            bank: row.bankHandle,
            currency: row.currency,
            livemode,
            from: String(row.netDebitCap),
            to: balance.toString(),
          },
          'net debit cap lowered to its liquidity cover at a settlement cycle',
        );
      }
    }
    return lowered;
  }

  /** What the bank's settlement account in the row's currency holds now (0 if held in another); null when its core does not say. */
  private async coverOf(row: PositionRow, requestId: string, logger: Logger): Promise<bigint | null> {
    try {
      const bank = await this.directory.bankInFlight({ handle: row.bankHandle }, requestId);
      const account = await this.cores
        .for(bank, row.livemode ? 'live' : 'test')
        .getAccount(settlementIbanFor(bank, row.currency), { requestId });
      return account.currency === row.currency ? BigInt(Math.max(0, account.balance)) : 0n;
    } catch (error) {
      logger.warn(
        { err: error, bank: row.bankHandle, currency: row.currency, request_id: requestId },
        'liquidity cover not read at the settlement cycle (the core did not say): the cap is kept',
      );
      return null;
    }
  }

  /** A bank's positions, per currency and world. */
  positions(em: EntityManager, bankHandle: string): Promise<PositionRow[]> {
    return readPositions(em, bankHandle);
  }
}
