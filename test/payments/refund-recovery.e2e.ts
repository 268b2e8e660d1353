import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  paidSession,
  refundSettles,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * A refund is a movement of the same engine as a payment, with the same guarantees: a process
 * killed between the merchant's debit and the payer's credit (the credit hangs at the core) is
 * taken over after restart by the recovery job, with the same core references, so the merchant is
 * debited once and the payer credited once, and the refund completes with one event.
 */
describe('refunds after a crash between debit and credit', () => {
  const secrets = {
    PLATFORM_SECRET: 'refund-recovery-secret-0123456789abcdef',
    ADMIN_KEY: 'refund-recovery-admin-0123456789abcdef',
  };
  // The first process waits on its hung credit far longer than the test runs: as good as dead.
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
  let shop: Customer;
  let merchant: { merchantId: string; apiKey: string };

  const lines = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();
  const execution = (id: string) => db.knex('payments.payment_executions').where({ movement_id: id }).first();
  const refund = async (t: TestPlatform, sessionId: string, amount: number) =>
    (
      await t.rest('POST', `/payments/sessions/${sessionId}/refunds`, {
        headers: bearer(merchant.apiKey),
        body: { amount },
      })
    ).body as { refund_id: string; status: string };

  beforeAll(async () => {
    db = await openTestDatabase();
    first = await startTestPlatform({ db, env: secrets, paymentsEngine: STUCK_ENGINE });
    alpha = await startPaymentBank(first);
    beta = await startPaymentBank(first);
    shop = await alpha.customer({ balance: 200_000 });
    merchant = await first.seed.createMerchant({ name: 'Crash Refunds', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await second?.stop();
    await db.close();
  });

  it('resumes a same-bank and a cross-bank refund on restart: one debit, one credit each, COMPLETED with one event', async () => {
    const near = await alpha.customer({ balance: 50_000 });
    const far = await beta.customer({ balance: 50_000 });
    const nearSession = await paidSession(first, merchant.apiKey, shop, near, 8_000);
    const farSession = await paidSession(first, merchant.apiKey, shop, far, 9_000);
    const shopBefore = await alpha.balance(shop.iban);

    // Same bank: the merchant's debit is booked, the payer's credit never answers.
    alpha.sandbox.injectFaults({ hang: true, operations: ['credit'], times: 1 });
    const sameBank = await refund(first, nearSession, 3_000);
    expect(sameBank.status).toBe('PROCESSING');
    await eventually(
      async () => ((await lines(alpha, sameBank.refund_id)).length === 1 ? true : undefined),
      'the debit to be booked at the core',
    );
    // The same-bank debit is recorded with the credit's outcome: the row is still at `debit`.
    expect((await execution(sameBank.refund_id)).step).toBe('debit');

    // Cross bank: debited at alpha and recorded, the rail credit at beta hangs.
    beta.sandbox.injectFaults({ hang: true, operations: ['credit'], times: 1 });
    const rail = await refund(first, farSession, 4_000);
    await eventually(
      async () => ((await execution(rail.refund_id))?.step === 'credit' ? true : undefined),
      'the rail debit to be recorded',
    );
    expect(await lines(alpha, sameBank.refund_id)).toEqual([`DEBIT ${shop.iban} 3000`]);
    expect(await lines(alpha, rail.refund_id)).toEqual([`DEBIT ${shop.iban} 4000`]);
    expect(await lines(beta, rail.refund_id)).toEqual([]);

    // The process dies; a new one starts on the same database, and the banks call it from now on.
    await first.stop();
    second = await startTestPlatform({ db, env: secrets, paymentsEngine: FAST_ENGINE });
    for (const bank of [alpha, beta])
      await bank.sandbox.configureGateway({ url: second.platform.restUrl, bankKey: bank.bankKey });

    for (const id of [sameBank.refund_id, rail.refund_id])
      expect(await refundSettles(second, merchant.apiKey, id)).toMatchObject({ status: 'COMPLETED' });
    expect(await lines(alpha, sameBank.refund_id)).toEqual([`CREDIT ${near.iban} 3000`, `DEBIT ${shop.iban} 3000`]);
    expect(await lines(alpha, rail.refund_id)).toEqual([`DEBIT ${shop.iban} 4000`]);
    expect(await lines(beta, rail.refund_id)).toEqual([`CREDIT ${far.iban} 4000`]);
    for (const id of [sameBank.refund_id, rail.refund_id]) {
      expect(await lines(alpha, `${id}:reversal`)).toEqual([]);
      expect(
        await db.knex('payments.outbox').where({ aggregate_type: 'refund', aggregate_id: id }).select('kind'),
      ).toEqual([{ kind: 'refund.completed' }]);
    }
    expect(await alpha.balance(shop.iban)).toBe(shopBefore - 7_000);
    expect(await alpha.balance(near.iban)).toBe(42_000 + 3_000);
    expect(await beta.balance(far.iban)).toBe(41_000 + 4_000);
    expect(
      await db
        .knex('payments.interbank_obligations')
        .where({ session_id: rail.refund_id })
        .select('debtor_bank', 'creditor_bank', 'amount'),
    ).toEqual([{ debtor_bank: alpha.handle, creditor_bank: beta.handle, amount: '4000' }]);
    const sessions = await db.knex('payments.payment_sessions').whereIn('id', [nearSession, farSession]);
    expect(sessions.map((row: { amount_refunded: string }) => Number(row.amount_refunded)).sort()).toEqual([
      3_000, 4_000,
    ]);
  });
});
