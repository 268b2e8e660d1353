import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { call } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  sessionReaches,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Short leases, renewed while a step works (issue 17, "takeover in seconds"): a live process in
 * the middle of a slow core call keeps its step (its lease is renewed, its fencing token stays),
 * and once it dies another process takes the step over with a new token and finishes it with the
 * same references: one debit, one credit.
 */
describe('execution leases: renewed while alive, taken over after death', () => {
  const secrets = {
    PLATFORM_SECRET: 'takeover-platform-secret-0123456789abcdef',
    ADMIN_KEY: 'takeover-admin-key-0123456789abcdef',
  };
  const LEASE_MS = 1_200;
  // The first process's credit call hangs far longer than the test: only the renewal keeps its lease.
  const SLOW = {
    ...FAST_ENGINE,
    coreTimeoutMs: 60_000,
    coreBudgetMs: 60_000,
    authorizeWaitMs: 500,
    leaseMs: LEASE_MS,
    recoveryIntervalMs: 100,
  };
  let db: Database;
  let first: TestPlatform;
  let second: TestPlatform | undefined;
  let bank: PaymentBank;
  let payer: Customer;
  let payee: Customer;
  let merchant: { merchantId: string; apiKey: string };

  const execution = (id: string) => db.knex('payments.payment_executions').where({ movement_id: id }).first();
  const lines = async (reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();

  beforeAll(async () => {
    db = await openTestDatabase();
    first = await startTestPlatform({ db, env: secrets, paymentsEngine: SLOW });
    bank = await startPaymentBank(first);
    payer = await bank.customer({ balance: 50_000 });
    payee = await bank.customer({ balance: 0 });
    merchant = await first.seed.createMerchant({ name: 'Takeover Shop' });
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await second?.stop();
    await db.close();
  });

  it('keeps the step while the owner lives, and hands it to another process with a new token when it dies', async () => {
    bank.sandbox.injectFaults({ hang: true, operations: ['credit'], times: 1 });
    const created = await call(first.platform.restUrl, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 7_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    const id = created.body.session_id as string;
    await call(first.platform.restUrl, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    // Same bank, the debit is recorded with the credit's outcome: the row stays at `debit` while the credit hangs.
    await eventually(
      async () => ((await lines(id)).length === 1 ? true : undefined),
      'the debit to be booked at the core',
    );
    const held = await execution(id);
    expect(held).toMatchObject({ step: 'debit', lease_token: expect.any(String) });

    // Three lease lengths later the owner, still waiting on its call, still holds the step.
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    const still = await execution(id);
    expect(still).toMatchObject({ step: 'debit', lease_token: held.lease_token });
    expect(new Date(still.lease_until).getTime()).toBeGreaterThan(Date.now());
    expect(await lines(id)).toEqual([`DEBIT ${payer.iban} 7000`]);

    // The owner dies; another process takes the step over (a new token) and finishes it.
    await first.stop();
    second = await startTestPlatform({
      db,
      env: secrets,
      paymentsEngine: { ...FAST_ENGINE, leaseMs: LEASE_MS, recoveryIntervalMs: 100 },
    });
    await bank.sandbox.configureGateway({ url: second.platform.restUrl, bankKey: bank.bankKey });
    await sessionReaches(second, merchant.apiKey, id, 'COMPLETED');
    const done = await execution(id);
    expect(done.lease_token).not.toBe(held.lease_token);
    expect(await lines(id)).toEqual([`CREDIT ${payee.iban} 7000`, `DEBIT ${payer.iban} 7000`]);
    expect(await bank.balance(payer.iban)).toBe(43_000);
  });
});
