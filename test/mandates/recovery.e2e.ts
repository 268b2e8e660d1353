import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * A mandate charge is executed by the same engine as a session, with the same guarantees: a
 * process killed between the debit and the credit is taken over after restart by the recovery
 * job, with the same core references, so the customer is debited once and the merchant credited once.
 */
describe('mandate charges after a crash between debit and credit', () => {
  const secrets = {
    PLATFORM_SECRET: 'mandate-recovery-secret-0123456789abcdef',
    ADMIN_KEY: 'mandate-recovery-admin-0123456789abcdef',
  };
  const STUCK_ENGINE = {
    ...FAST_ENGINE,
    coreTimeoutMs: 60_000,
    coreBudgetMs: 60_000,
    authorizeWaitMs: 1_000,
    leaseMs: 2_000,
  };
  let db: Database;
  let first: TestPlatform;
  let second: TestPlatform | undefined;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let customer: Customer;
  let shop: Customer;
  let merchant: { merchantId: string; apiKey: string };

  const lines = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();
  const execution = (id: string) => db.knex('payments.payment_executions').where({ movement_id: id }).first();

  beforeAll(async () => {
    db = await openTestDatabase();
    first = await startTestPlatform({ db, env: secrets, paymentsEngine: STUCK_ENGINE });
    alpha = await startPaymentBank(first);
    beta = await startPaymentBank(first);
    customer = await alpha.customer({ balance: 100_000 });
    shop = await beta.customer({ balance: 0 });
    merchant = await first.seed.createMerchant({ name: 'Crash Gym', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await second?.stop();
    await db.close();
  });

  it('resumes a cross-bank charge on restart: one debit, one credit, COMPLETED with one event', async () => {
    const created = await first.rest('POST', '/recurring/mandates', {
      headers: bearer(merchant.apiKey),
      body: {
        customer_alias: customer.alias,
        amount: 9_000,
        currency: 'LYD',
        interval: 'weekly',
        description: 'Weekly box',
        start_date: '2026-01-05',
      },
    });
    const id = created.body.mandate_id as string;
    expect(
      (await first.rest('POST', `/recurring/mandates/${id}/confirm`, { body: { otp: customer.otp } })).status,
    ).toBe(200);

    beta.sandbox.injectFaults({ hang: true, operations: ['credit'], times: 1 });
    const charged = await first.rest('POST', `/recurring/mandates/${id}/charge`, {
      headers: bearer(merchant.apiKey),
      body: { amount: 9_000, reference: 'wk-1' },
    });
    expect(charged.body.status).toBe('PROCESSING');
    const chargeId = charged.body.charge_id as string;
    await eventually(
      async () => ((await execution(chargeId))?.step === 'credit' ? true : undefined),
      'the debit to be recorded',
    );
    expect(await lines(alpha, chargeId)).toEqual([`DEBIT ${customer.iban} 9000`]);

    await first.stop();
    second = await startTestPlatform({ db, env: secrets, paymentsEngine: FAST_ENGINE });
    for (const bank of [alpha, beta])
      await bank.sandbox.configureGateway({ url: second.platform.restUrl, bankKey: bank.bankKey });

    const done = await eventually(async () => {
      const list = await second!.rest('GET', `/recurring/mandates/${id}/charges`, { headers: bearer(merchant.apiKey) });
      return list.body.charges[0]?.status === 'COMPLETED' ? list.body.charges[0] : undefined;
    }, 'the charge to complete');
    expect(done).toMatchObject({ charge_id: chargeId, settlement_type: 'rail' });
    expect(await lines(alpha, chargeId)).toEqual([`DEBIT ${customer.iban} 9000`]);
    expect(await lines(beta, chargeId)).toEqual([`CREDIT ${shop.iban} 9000`]);
    expect(await lines(alpha, `${chargeId}:reversal`)).toEqual([]);
    expect(await alpha.balance(customer.iban)).toBe(91_000);
    expect(await beta.balance(shop.iban)).toBe(9_000);
    const events = await db.knex('payments.outbox').where({ aggregate_id: id, kind: 'mandate.charge.completed' });
    expect(events).toHaveLength(1);
  });
});
