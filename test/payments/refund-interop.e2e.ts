import type { EngineSettings } from '@gateway/subgraph-payments';
import { startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { bearer, FAST_ENGINE, paidSession, refundSettles } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/** A rail credit no core confirms completes on the evidence of the booked credit, soon in a test. */
const ENGINE: Partial<EngineSettings> = { ...FAST_ENGINE, confirmResendAfterMs: 400, confirmGiveUpAfterMs: 2_000 };

/**
 * Refunds through bank cores written from the spec alone (minimal JSON answers, no credit
 * confirmations): the merchant's settlement account is debited and the payer credited once at
 * the cores, same bank and cross bank, and the balances add up.
 */
describe('refunds with bank cores written from the spec alone', () => {
  let t: TestPlatform;
  let alpha: MinimalBank;
  let beta: MinimalBank;
  let shop: MinimalCustomer;
  let merchant: { merchantId: string; apiKey: string };

  const refund = (sessionId: string, body: Record<string, unknown> = {}) =>
    t.rest('POST', `/payments/sessions/${sessionId}/refunds`, { headers: bearer(merchant.apiKey), body });
  const booked = (bank: MinimalBank, reference: string) =>
    bank.core.calls
      .filter((call) => call.body?.reference === reference)
      .map((call) => `${call.path} ${call.body!.iban} ${call.body!.amount}`);

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: ENGINE });
    alpha = await startMinimalBank(t);
    beta = await startMinimalBank(t);
    shop = await alpha.customer({ balance: 100_000 });
    merchant = await t.seed.createMerchant({ name: 'Spec Shop', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha.core.stop();
    await beta.core.stop();
    await t.stop();
  });

  it('same bank, full: COMPLETED at once, one debit and one credit at the core', async () => {
    const payer = await alpha.customer({ balance: 10_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 4_000);
    const answer = await refund(id);
    expect(answer.body).toMatchObject({ amount: 4_000, status: 'COMPLETED' });
    expect(booked(alpha, answer.body.refund_id)).toEqual([
      `/accounts/debit ${shop.iban} 4000`,
      `/accounts/credit ${payer.iban} 4000`,
    ]);
    expect([alpha.core.balance(payer.iban), alpha.core.balance(shop.iban)]).toEqual([10_000, 100_000]);
  });

  it('cross bank, partial: debited at the merchant’s core, credited once at the payer’s, completed on the evidence', async () => {
    const payer = await beta.customer({ balance: 10_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 6_000);
    const shopBefore = alpha.core.balance(shop.iban);
    const answer = await refund(id, { amount: 2_500 });
    expect(answer.body).toMatchObject({ amount: 2_500, status: 'PROCESSING' });
    const refundId = answer.body.refund_id as string;
    expect(await refundSettles(t, merchant.apiKey, refundId)).toMatchObject({ status: 'COMPLETED' });
    expect(booked(alpha, refundId)).toEqual([`/accounts/debit ${shop.iban} 2500`]);
    // Sent again while unconfirmed: the core deduplicates by reference, so the payer is credited once.
    expect(new Set(booked(beta, refundId))).toEqual(new Set([`/accounts/credit ${payer.iban} 2500`]));
    expect(alpha.core.balance(shop.iban)).toBe(shopBefore - 2_500);
    expect(beta.core.balance(payer.iban)).toBe(4_000 + 2_500);
    expect(
      (await t.rest('GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) })).body.amount_refunded,
    ).toBe(2_500);
  });
});
