import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { call } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  sessionEvents,
  sessionReaches,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * A platform killed between the debit and the credit: its engine is stuck in a credit the core
 * never answers (sandbox `hang`), the platform stops, a new one starts on the same database, and
 * its recovery job finishes every session with the same core references: one debit and one
 * credit per session in the sandbox ledgers, whatever the first process had already sent.
 */
describe('payment recovery after a crash between debit and credit', () => {
  const secrets = {
    PLATFORM_SECRET: 'recovery-platform-secret-0123456789abcdef',
    ADMIN_KEY: 'recovery-admin-key-0123456789abcdef',
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
  let merchant: { merchantId: string; apiKey: string };
  let payer: Customer;
  let payeeAlpha: Customer;
  let payeeBeta: Customer;

  const create = async (t: TestPlatform, payee: Customer, amount: number) =>
    (
      await call(t.platform.restUrl, 'POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body.session_id as string;
  const authorize = (t: TestPlatform, id: string) =>
    call(t.platform.restUrl, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
  const execution = (id: string) => db.knex('payments.payment_executions').where({ movement_id: id }).first();
  const lines = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();

  beforeAll(async () => {
    db = await openTestDatabase();
    first = await startTestPlatform({ db, env: secrets, paymentsEngine: STUCK_ENGINE });
    alpha = await startPaymentBank(first);
    beta = await startPaymentBank(first);
    merchant = await first.seed.createMerchant({ name: 'Crash Shop' });
    payer = await alpha.customer({ balance: 100_000 });
    payeeAlpha = await alpha.customer({ balance: 0 });
    payeeBeta = await beta.customer({ balance: 0 });
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await second?.stop();
    await db.close();
  });

  it('resumes same-bank and cross-bank sessions on restart, moving every amount exactly once', async () => {
    // 1. Same bank, the credit never reaches the core's books.
    alpha.sandbox.injectFaults({ hang: true, operations: ['credit'], times: 1 });
    const unbooked = await create(first, payeeAlpha, 11_000);
    expect((await authorize(first, unbooked)).body.status).toBe('PROCESSING');
    // Same bank, the debit is recorded with the credit's outcome, in its statement: the core has it, the row is still at `debit`.
    await eventually(
      async () => ((await lines(alpha, unbooked)).length === 1 ? true : undefined),
      'the debit to be booked at the core',
    );
    expect((await execution(unbooked)).step).toBe('debit');

    // 2. Same bank, the credit is booked but its answer never comes back.
    alpha.sandbox.injectFaults({ hang: true, afterBooking: true, operations: ['credit'], times: 1 });
    const answerLost = await create(first, payeeAlpha, 22_000);
    expect((await authorize(first, answerLost)).body.status).toBe('PROCESSING');
    await eventually(
      async () => ((await lines(alpha, answerLost)).length === 2 ? true : undefined),
      'the credit to be booked at the core',
    );

    // 3. Cross bank: debited at alpha, the rail credit at beta hangs.
    beta.sandbox.injectFaults({ hang: true, operations: ['credit'], times: 1 });
    const rail = await create(first, payeeBeta, 33_000);
    expect((await authorize(first, rail)).body.status).toBe('SETTLEMENT_PENDING');
    await eventually(
      async () => ((await execution(rail))?.step === 'credit' ? true : undefined),
      'the rail debit to be recorded',
    );

    for (const id of [unbooked, answerLost]) expect((await execution(id)).credit_booked_at).toBeNull();
    expect(await lines(alpha, unbooked)).toEqual([`DEBIT ${payer.iban} 11000`]);
    expect(await lines(beta, rail)).toEqual([]);
    // The rail movement in flight holds its reservation on the payer's bank (net debit caps, issue 48).
    const reservations = () =>
      db.knex('payments.position_reservations').whereIn('movement_id', [unbooked, answerLost, rail]);
    expect(await reservations()).toMatchObject([{ movement_id: rail, bank_handle: alpha.handle, amount: '33000' }]);

    // The process dies; a new one starts on the same database, and the banks call it from now on.
    await first.stop();
    second = await startTestPlatform({ db, env: secrets, paymentsEngine: FAST_ENGINE });
    for (const bank of [alpha, beta])
      await bank.sandbox.configureGateway({ url: second.platform.restUrl, bankKey: bank.bankKey });

    for (const id of [unbooked, answerLost, rail]) await sessionReaches(second, merchant.apiKey, id, 'COMPLETED');

    expect(await lines(alpha, unbooked)).toEqual([`CREDIT ${payeeAlpha.iban} 11000`, `DEBIT ${payer.iban} 11000`]);
    expect(await lines(alpha, answerLost)).toEqual([`CREDIT ${payeeAlpha.iban} 22000`, `DEBIT ${payer.iban} 22000`]);
    expect(await lines(alpha, rail)).toEqual([`DEBIT ${payer.iban} 33000`]);
    expect(await lines(beta, rail)).toEqual([`CREDIT ${payeeBeta.iban} 33000`]);
    for (const id of [unbooked, answerLost, rail]) expect(await lines(alpha, `${id}:reversal`)).toEqual([]);

    expect(await alpha.balance(payer.iban)).toBe(100_000 - 11_000 - 22_000 - 33_000);
    expect(await alpha.balance(payeeAlpha.iban)).toBe(33_000);
    expect(await beta.balance(payeeBeta.iban)).toBe(33_000);
    expect(await db.knex('payments.interbank_obligations').where({ session_id: rail })).toMatchObject([
      { debtor_bank: alpha.handle, creditor_bank: beta.handle, amount: '33000' },
    ]);
    for (const id of [unbooked, answerLost, rail]) {
      expect((await sessionEvents(second, id)).filter((event) => event.kind === 'payment.completed')).toHaveLength(1);
    }
    // Recovery used the reservation exactly once: it is the obligation now, and nothing is left reserved.
    expect(await reservations()).toEqual([]);
    const position = (bank: string) =>
      db.knex('payments.net_debit_positions').where({ bank_handle: bank, currency: 'LYD', livemode: true }).first();
    expect(await position(alpha.handle)).toMatchObject({ unsettled_net: '33000', reserved: '0' });
    expect(await position(beta.handle)).toMatchObject({ unsettled_net: '-33000', reserved: '0' });
  });
});
