import { formatMoney } from '@gateway/kernel';
import { eventually, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { admin, pay } from './support';

/**
 * Liquidity cover (API-CONTRACT "Net debit caps and positions", issue 48): a covered cap may not
 * exceed what the bank's settlement account holds, read when the cap is set and again at each
 * settlement cycle. A cycle that books the bank's net debit on that account lowers the cap to the
 * new balance (never raises one), audited as the settlement service's act with its reason.
 */
describe('liquidity cover read again at each settlement cycle', () => {
  let t: TestPlatform;
  let a: PaymentBank;
  let b: PaymentBank;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, env: { SETTLEMENT_INTERVAL_SECONDS: '0' } });
    [a, b] = [await startPaymentBank(t), await startPaymentBank(t)];
  }, 120_000);
  afterAll(async () => {
    await a?.sandbox.stop();
    await b?.sandbox.stop();
    await t?.stop();
  });

  const live = async (bank: PaymentBank) =>
    ((await t.rest('GET', `/banks/${bank.handle}/positions`, { headers: admin(t) })).body.positions as any[]).find(
      (row) => row.livemode && row.currency === 'LYD',
    );

  it('lowers a covered cap to the settlement account balance after a cycle debited it, and keeps an uncovered one', async () => {
    const cover = await a.balance(a.settlementIban);
    const covered = await t.rest('PUT', `/banks/${a.handle}/net-debit-caps/LYD`, {
      headers: admin(t),
      body: { net_debit_cap: cover, liquidity_cover: true },
    });
    expect([covered.status, covered.body.net_debit_cap]).toEqual([200, cover]);
    const uncovered = await t.rest('PUT', `/banks/${b.handle}/net-debit-caps/LYD`, {
      headers: admin(t),
      body: { net_debit_cap: 1 },
    });
    expect(uncovered.status).toBe(200);

    const merchant = await t.seed.createMerchant({ name: 'Cover Shop' });
    await pay(t, merchant.apiKey, await a.customer(), await b.customer(), 1_500);
    const cycle = await t.rest('POST', '/settlement/cycles', { headers: admin(t) });
    expect(cycle.status).toBe(201);

    const lowered = await eventually(async () => {
      const row = await live(a);
      return row?.net_debit_cap !== cover ? row : undefined;
    }, 'the covered cap lowered after the cycle');
    const balance = await a.balance(a.settlementIban);
    expect(balance).toBe(cover - 1_500);
    expect(lowered).toMatchObject({ net_debit_cap: balance, liquidity_cover: true, position: 0 });
    // The creditor's uncovered cap is untouched (its account was credited, and a cap is never raised).
    expect(await live(b)).toMatchObject({ net_debit_cap: 1 });

    const audit = await t.rest('GET', `/admin/audit?target=${a.handle}&action=bank.net_debit_cap_set`, {
      headers: admin(t),
    });
    expect(audit.body.entries[0]).toMatchObject({
      actor: { kind: 'service', id: 'settlement' },
      changes: {
        net_debit_cap: { from: String(cover), to: String(balance) },
        reason: {
          to: `liquidity cover: the settlement account holds ${formatMoney(balance, 'LYD')}, below the cap of ${formatMoney(cover, 'LYD')}`,
        },
      },
    });
  });
});
