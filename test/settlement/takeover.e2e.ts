import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { settlementRepository, type PositionOwner } from '@gateway/subgraph-payments/testing';
import { eventually, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { admin, pay, settlementLines } from './support';

/**
 * Settlement positions under short leases (issue 17, "takeover in seconds"): a process whose core
 * call is slower than the lease keeps its position (renewals; the other process sends nothing
 * meanwhile), and once it stops renewing (a frozen or cut-off process) the position is taken
 * over within seconds with a new fencing token and booked with the same reference;
 * the stale owner's late result is refused: one ledger line, one record.
 */
describe('settlement positions: kept while the runner lives, taken over within seconds when it stops', () => {
  const secrets = {
    PLATFORM_SECRET: 'settlement-takeover-secret-0123456789abcdef',
    ADMIN_KEY: 'settlement-takeover-admin-0123456789abcd',
    SETTLEMENT_INTERVAL_SECONDS: '0',
  };
  const LEASE_MS = 2_000;
  // Core calls may last far longer than the test: only the renewals keep a position.
  const ENGINE = {
    ...FAST_ENGINE,
    coreTimeoutMs: 60_000,
    coreBudgetMs: 60_000,
    leaseMs: LEASE_MS,
    recoveryIntervalMs: 100,
  };
  // The first call of beta's position answers this late: after the takeover.
  const SLOW_CORE_MS = 15_000;
  let db: Database;
  let first: TestPlatform;
  let second: TestPlatform;
  let alpha: PaymentBank;
  let beta: PaymentBank;

  const positionOf = (cycleId: string, bank: string) =>
    db.knex('payments.settlement_positions').where({ cycle_id: cycleId, bank_handle: bank }).first();

  beforeAll(async () => {
    db = await openTestDatabase();
    first = await startTestPlatform({ db, env: secrets, paymentsEngine: ENGINE, paymentsSettlement: { waitMs: 500 } });
    second = await startTestPlatform({ db, env: secrets, paymentsEngine: ENGINE, paymentsSettlement: { waitMs: 500 } });
    alpha = await startPaymentBank(first);
    beta = await startPaymentBank(first);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await second.stop();
    await first.stop();
    await db.close();
  });

  it('keeps a slow position with its runner, and hands it to the other process with a new token when it stops; the stale result is refused', async () => {
    const merchant = await first.seed.createMerchant({ name: 'Takeover Settlement Shop' });
    await pay(
      first,
      merchant.apiKey,
      await alpha.customer({ balance: 100_000 }),
      await beta.customer({ balance: 0 }),
      4_200,
    );
    const betaFunds = await beta.balance(beta.settlementIban);
    beta.sandbox.resetRequestCounts();
    beta.sandbox.injectFaults({ latencyMs: SLOW_CORE_MS, operations: ['credit'], times: 1 });

    const answer = await first.rest('POST', '/settlement/cycles', { headers: admin(first) });
    expect(answer.status).toBe(201);
    const cycleId = answer.body.cycle_id as string;
    const held = await positionOf(cycleId, beta.handle);
    expect(held).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: expect.any(String) });

    // Three lease lengths later the first process, still waiting on the core, still holds the position.
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    const still = await positionOf(cycleId, beta.handle);
    expect(still).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: held.lease_token });
    expect(new Date(still.lease_until).getTime()).toBeGreaterThan(Date.now());
    expect(beta.sandbox.requestCounts().byOperation.credit).toBe(1);

    // The first process stops renewing (frozen, or cut off from the database) while its core call runs.
    const renew = settlementRepository.renewLease.bind(settlementRepository);
    jest
      .spyOn(settlementRepository, 'renewLease')
      .mockImplementation(async (em, key, owner: PositionOwner, until) =>
        owner.leaseToken === held.lease_token ? true : renew(em, key, owner, until),
      );
    const record = settlementRepository.record.bind(settlementRepository);
    const staleRecords: Array<Promise<boolean>> = [];
    jest.spyOn(settlementRepository, 'record').mockImplementation((em, key, expected, changes, now) => {
      const recorded = record(em, key, expected, changes, now);
      if (expected.leaseToken === held.lease_token) staleRecords.push(recorded);
      return recorded;
    });
    const stoppedAt = Date.now();

    // Within seconds a recovery job (the other process's, or this one's, which sees the lapsed lease like anyone else)
    // takes the position over with a new token and books it by the same reference.
    const settled = await eventually(async () => {
      const row = await positionOf(cycleId, beta.handle);
      return row.status === 'SETTLED' ? row : undefined;
    }, 'the position to be booked by the new owner');
    expect(Date.now() - stoppedAt).toBeLessThanOrEqual(5_000);
    expect(settled).toMatchObject({ attempts: 1, lease_token: expect.any(String) });
    expect(settled.lease_token).not.toBe(held.lease_token);

    // The stale owner's call comes back at last: its result is refused.
    expect(await eventually(async () => staleRecords[0], "the stale owner's late result", SLOW_CORE_MS + 5_000)).toBe(
      false,
    );
    expect(await positionOf(cycleId, beta.handle)).toMatchObject({
      status: 'SETTLED',
      attempts: 1,
      lease_token: settled.lease_token,
    });
    expect(beta.sandbox.requestCounts().byOperation.credit).toBe(2);
    expect(await settlementLines(beta, `${cycleId}:${beta.handle}:LYD`)).toEqual([
      `CREDIT ${beta.settlementIban} 4200`,
    ]);
    expect(await beta.balance(beta.settlementIban)).toBe(betaFunds + 4_200);
    const cycle = (await second.rest('GET', `/settlement/cycles/${cycleId}`, { headers: admin(second) })).body;
    expect(cycle.status).toBe('SETTLED');
  });
});
