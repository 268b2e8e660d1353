import { admin, settlementLines } from '../settlement/support';
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
 * Suspension never strands money (API-CONTRACT "Operator controls": movements in flight finish;
 * settlement still pays its positions). A cross-bank payment whose debit is still at the payer's
 * core when both banks and the merchant are suspended goes on: the credit at the suspended
 * payee bank, its core's confirmation with its internal key, COMPLETED; then a settlement cycle
 * books both suspended banks' positions.
 */
describe('work in flight when its participants are suspended', () => {
  let t: TestPlatform;
  let payerBank: PaymentBank;
  let payeeBank: PaymentBank;
  let payer: Customer;
  let payee: Customer;

  beforeAll(async () => {
    t = await startTestPlatform({
      // One slow debit call, not a timeout and a replay: the suspensions land while it is at the core.
      paymentsEngine: { ...FAST_ENGINE, coreTimeoutMs: 5_000, coreBudgetMs: 6_000 },
      env: { SETTLEMENT_INTERVAL_SECONDS: '0' },
      paymentsSettlement: { retryMaxMs: 600 },
    });
    payerBank = await startPaymentBank(t);
    // The confirmation callback comes well after the suspension.
    payeeBank = await startPaymentBank(t, { confirmDelayMs: { min: 1_500, max: 1_500 } });
    [payer, payee] = [await payerBank.customer({ balance: 100_000 }), await payeeBank.customer({ balance: 0 })];
  });
  afterAll(async () => {
    for (const bank of [payerBank, payeeBank]) await bank?.sandbox.stop();
    await t.stop();
  });

  it('a payment PROCESSING when its banks and merchant are suspended completes, and settlement pays both banks', async () => {
    const merchant = await t.seed.createMerchant({ name: 'In Flight Shop' });
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 4_200, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect(created.status).toBe(201);
    const id = created.body.session_id as string;

    // The debit answers late: the suspensions land while the movement is at the payer's core.
    payerBank.sandbox.injectFaults({ latencyMs: 2_500, operations: ['debit'], times: 1 });
    const authorized = t.rest('POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    await sessionReaches(t, merchant.apiKey, id, 'PROCESSING');
    const suspended = await Promise.all(
      [
        `/banks/${payerBank.handle}/suspend`,
        `/banks/${payeeBank.handle}/suspend`,
        `/merchants/${merchant.merchantId}/suspend`,
      ].map((path) => t.rest('POST', path, { headers: admin(t) })),
    );
    expect(suspended.map((answer) => answer.body.status)).toEqual(['SUSPENDED', 'SUSPENDED', 'SUSPENDED']);
    // Still at the debit: every later step runs against suspended participants.
    expect(
      payerBank.sandbox.requestCounts().byOperation.credit + payeeBank.sandbox.requestCounts().byOperation.credit,
    ).toBe(0);

    // Their credentials and new work are refused meanwhile.
    const refusedKey = await t.rest('GET', `/banks/${payeeBank.handle}`, {
      headers: { 'x-service-bank-key': payeeBank.bankKey },
    });
    expect([refusedKey.status, refusedKey.body.error.code]).toEqual([403, 'BANK_SUSPENDED']);
    const other = await t.seed.createMerchant({ name: 'New Work Shop' });
    const newWork = await t.rest('POST', '/payments/sessions', {
      headers: bearer(other.apiKey),
      body: { amount: 100, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect([newWork.status, newWork.body.error.code]).toEqual([422, 'BANK_NOT_PARTICIPATING']);

    // The movement goes on: credit at the suspended payee bank, then its confirmation (internal key).
    expect((await authorized).status).toBe(200);
    const completed = await eventually(async () => {
      const session = await t.rest('GET', `/payments/sessions/${id}`, { headers: admin(t) });
      return session.body.status === 'COMPLETED' ? session.body : undefined;
    }, 'the payment to complete');
    expect(completed).toMatchObject({ status: 'COMPLETED', amount: 4_200 });
    expect(await payerBank.balance(payer.iban)).toBe(100_000 - 4_200);
    expect(await payeeBank.balance(payee.iban)).toBe(4_200);

    // Settlement pays the suspended banks' positions.
    const cycle = (await t.rest('POST', '/settlement/cycles', { headers: admin(t) })).body;
    expect(cycle.status).toBe('SETTLED');
    expect(cycle.positions.map((p: any) => [p.bank_handle, p.net_amount, p.status])).toEqual([
      [payerBank.handle, -4_200, 'SETTLED'],
      [payeeBank.handle, 4_200, 'SETTLED'],
    ]);
    expect(await settlementLines(payerBank, `${cycle.cycle_id}:${payerBank.handle}:LYD`)).toEqual([
      `DEBIT ${payerBank.settlementIban} 4200`,
    ]);
    expect(await settlementLines(payeeBank, `${cycle.cycle_id}:${payeeBank.handle}:LYD`)).toEqual([
      `CREDIT ${payeeBank.settlementIban} 4200`,
    ]);
  });
});
