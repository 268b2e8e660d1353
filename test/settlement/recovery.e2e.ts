import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { eventually, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { admin, pay, settlementLines } from './support';

/**
 * A platform killed mid-cycle: one position booked and recorded, the other booked at its core
 * but its answer never heard (sandbox hang after booking). A new platform on the same database
 * resumes the cycle: the recorded position is never sent again, the other is replayed with its
 * reference and the core's deduplication answers it; one ledger line each, the cycle SETTLED.
 */
describe('settlement recovery after a crash mid-cycle', () => {
  const secrets = {
    PLATFORM_SECRET: 'settlement-recovery-secret-0123456789abcdef',
    ADMIN_KEY: 'settlement-recovery-admin-0123456789abcd',
    SETTLEMENT_INTERVAL_SECONDS: '0',
  };
  // The first process waits on its hung call far longer than the test runs: as good as dead.
  const STUCK_ENGINE = { ...FAST_ENGINE, coreTimeoutMs: 60_000, coreBudgetMs: 60_000, leaseMs: 2_000 };
  let db: Database;
  let first: TestPlatform;
  let second: TestPlatform | undefined;
  let alpha: PaymentBank;
  let beta: PaymentBank;

  beforeAll(async () => {
    db = await openTestDatabase();
    first = await startTestPlatform({
      db,
      env: secrets,
      paymentsEngine: STUCK_ENGINE,
      paymentsSettlement: { waitMs: 1_000 },
    });
    alpha = await startPaymentBank(first);
    beta = await startPaymentBank(first);
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await second?.stop();
    await db.close();
  });

  it('resumes the cycle on restart: nothing settled twice, nothing skipped', async () => {
    const merchant = await first.seed.createMerchant({ name: 'Crash Settlement Shop' });
    const payer = await alpha.customer({ balance: 100_000 });
    const payee = await beta.customer({ balance: 0 });
    await pay(first, merchant.apiKey, payer, payee, 4_200);
    const betaFunds = await beta.balance(beta.settlementIban);

    // beta's credit is booked, then its answer hangs: the first process never learns it.
    beta.sandbox.injectFaults({ hang: true, afterBooking: true, operations: ['credit'], times: 1 });
    const answer = await first.rest('POST', '/settlement/cycles', { headers: admin(first) });
    expect(answer.status).toBe(201);
    const cycleId = answer.body.cycle_id as string;
    const alphaRef = `${cycleId}:${alpha.handle}:LYD`;
    const betaRef = `${cycleId}:${beta.handle}:LYD`;
    expect(answer.body.status).toBe('SETTLING');
    // alpha's debit is recorded (the answer waits for it at most waitMs: a loaded machine can take longer), beta's hangs.
    const positions = await eventually(async () => {
      const cycle = (await first.rest('GET', `/settlement/cycles/${cycleId}`, { headers: admin(first) })).body;
      return cycle.positions[0].status === 'SETTLED' ? cycle.positions : undefined;
    }, "alpha's position to be recorded");
    expect(positions.map((p: any) => [p.bank_handle, p.status])).toEqual([
      [alpha.handle, 'SETTLED'],
      [beta.handle, 'PENDING'],
    ]);
    await eventually(
      async () => ((await settlementLines(beta, betaRef)).length === 1 ? true : undefined),
      'the credit to be booked at the core',
    );

    // The process dies; a new one starts on the same database.
    await first.stop();
    alpha.sandbox.resetRequestCounts();
    beta.sandbox.resetRequestCounts();
    second = await startTestPlatform({ db, env: secrets, paymentsEngine: FAST_ENGINE });
    const settled = await eventually(async () => {
      const cycle = (await second!.rest('GET', `/settlement/cycles/${cycleId}`, { headers: admin(second!) })).body;
      return cycle.status === 'SETTLED' ? cycle : undefined;
    }, 'the resumed cycle to settle');

    expect(settled.positions.map((p: any) => [p.bank_handle, p.net_amount, p.status])).toEqual([
      [alpha.handle, -4_200, 'SETTLED'],
      [beta.handle, 4_200, 'SETTLED'],
    ]);
    expect(await settlementLines(alpha, alphaRef)).toEqual([`DEBIT ${alpha.settlementIban} 4200`]);
    expect(await settlementLines(beta, betaRef)).toEqual([`CREDIT ${beta.settlementIban} 4200`]);
    expect(await beta.balance(beta.settlementIban)).toBe(betaFunds + 4_200);
    // The recorded position got no call from the new process; the unknown one was replayed (same reference), not re-booked.
    expect(alpha.sandbox.requestCounts().byOperation).toMatchObject({ debit: 0, credit: 0 });
    expect(beta.sandbox.requestCounts().byOperation.credit).toBeGreaterThanOrEqual(1);
    expect(
      await db.knex('payments.settlement_positions').where({ cycle_id: cycleId }).select('core_reference', 'status'),
    ).toHaveLength(2);
  });
});
