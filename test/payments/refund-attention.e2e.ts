import { outcomeNeverKnown, startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { bearer, eventually, SHORT_DEADLINES_ENGINE, paidSession, refundSettles } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * A refund whose outcome no core would tell (CBS_OUTCOME_UNKNOWN) keeps its amount taken while an
 * operator checks: the payer may have been credited, and refunding it again could pay twice. Once
 * the operator has the merchant's debit given back (REFUND_PAYER), the refund's outcome is known:
 * its amount is left to refund again, once, and the refund says why.
 */
describe('a refund handed to an operator', () => {
  let t: TestPlatform;
  let alpha: MinimalBank;
  let beta: MinimalBank;
  let shop: MinimalCustomer;
  let merchant: { merchantId: string; apiKey: string };

  const refund = (sessionId: string, amount: number) =>
    t.rest('POST', `/payments/sessions/${sessionId}/refunds`, { headers: bearer(merchant.apiKey), body: { amount } });
  const session = async (id: string) =>
    (await t.rest('GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) })).body;
  const attention = async () =>
    (await t.rest('GET', '/admin/attention?limit=100', { headers: { 'x-service-admin-key': t.adminKey } })).body
      .movements as Array<Record<string, any>>;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: SHORT_DEADLINES_ENGINE });
    alpha = await startMinimalBank(t);
    beta = await startMinimalBank(t);
    shop = await alpha.customer({ balance: 100_000 });
    merchant = await t.seed.createMerchant({ name: 'Held Refunds', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha.core.stop();
    await beta.core.stop();
    await t.stop();
  });

  it('REFUND_PAYER gives the merchant its debit back and the amount is left to refund again, once', async () => {
    const payer = await beta.customer({ balance: 20_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 5_000);
    // The payer's core answers the refund's credit only with redirects and HTML, and no statement:
    // whether the payer was credited cannot be established.
    beta.core.fail(...outcomeNeverKnown('/accounts/credit', payer.iban));
    const shopBefore = alpha.core.balance(shop.iban);
    const held = await refund(id, 3_000);
    expect(held.status).toBe(201);
    const refundId = held.body.refund_id as string;
    const failed = await refundSettles(t, merchant.apiKey, refundId);
    expect(failed).toMatchObject({ status: 'FAILED', failure_code: 'CBS_OUTCOME_UNKNOWN' });
    expect(alpha.core.balance(shop.iban)).toBe(shopBefore - 3_000);

    // Held: only what no refund has taken is left (5,000 - 3,000).
    expect((await session(id)).amount_refunded).toBe(3_000);
    const tooMuch = await refund(id, 2_001);
    expect([tooMuch.status, tooMuch.body.error?.code]).toEqual([422, 'REFUND_AMOUNT_EXCEEDED']);

    const [movement] = (await attention()).filter((m) => m.session_id === refundId);
    expect(movement).toMatchObject({ step: 'credit', session_status: 'FAILED', failure_code: 'CBS_OUTCOME_UNKNOWN' });
    const resolved = await t.rest('POST', `/admin/attention/${refundId}/resolve`, {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { action: 'REFUND_PAYER', note: 'the payer’s bank confirms no credit arrived' },
    });
    expect(resolved.status).toBe(200);

    // The reversal is booked at the merchant's core once, and the amount is free again.
    await eventually(
      async () => ((await session(id)).amount_refunded === 0 ? true : undefined),
      'the held amount released',
    );
    expect(alpha.core.balance(shop.iban)).toBe(shopBefore);
    expect(alpha.core.entries(shop.iban).filter((entry) => entry.reference === `${refundId}:reversal`)).toHaveLength(1);
    expect(beta.core.balance(payer.iban)).toBe(20_000 - 5_000);
    const established = (await t.rest('GET', `/refunds/${refundId}`, { headers: bearer(merchant.apiKey) })).body;
    expect(established).toMatchObject({ status: 'FAILED', failure_code: 'CBS_ERROR' });
    expect((await attention()).filter((m) => m.session_id === refundId)).toEqual([]);

    // The whole amount can be refunded now, and no more than that.
    const again = await refund(id, 5_000);
    expect(again.status).toBe(201);
    expect((await session(id)).amount_refunded).toBe(5_000);
    const over = await refund(id, 1);
    expect([over.status, over.body.error?.code]).toEqual([422, 'REFUND_AMOUNT_EXCEEDED']);
  });

  it('RETRY that finds the merchant never debited frees the amount with no reversal', async () => {
    const payer = await alpha.customer({ balance: 20_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 4_000);
    // The merchant's core answers the refund's debit only with redirects (booking nothing), and no
    // statement: whether the merchant was debited cannot be established.
    alpha.core.fail(...outcomeNeverKnown('/accounts/debit', shop.iban));
    const shopBefore = alpha.core.balance(shop.iban);
    const refundId = (await refund(id, 4_000)).body.refund_id as string;
    expect(await refundSettles(t, merchant.apiKey, refundId)).toMatchObject({
      status: 'FAILED',
      failure_code: 'CBS_OUTCOME_UNKNOWN',
    });
    expect((await session(id)).amount_refunded).toBe(4_000);
    const [movement] = await eventually(async () => {
      const listed = (await attention()).filter((m) => m.session_id === refundId);
      return listed.length ? listed : undefined;
    }, 'the refund on the attention list');
    expect(movement).toMatchObject({ step: 'resolve_debit', failure_code: 'CBS_OUTCOME_UNKNOWN' });

    // The core answers again; the operator has the engine ask once more, and the debit is refused.
    alpha.core.recover();
    alpha.core.fail({ path: '/accounts/debit', kind: 'status', status: 422, body: '{"error":"INSUFFICIENT_FUNDS"}' });
    const resolved = await t.rest('POST', `/admin/attention/${refundId}/resolve`, {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { action: 'RETRY', note: 'the core is back: ask it again' },
    });
    expect(resolved.status).toBe(200);
    await eventually(
      async () => ((await session(id)).amount_refunded === 0 ? true : undefined),
      'the held amount released',
    );
    const established = (await t.rest('GET', `/refunds/${refundId}`, { headers: bearer(merchant.apiKey) })).body;
    expect(established).toMatchObject({ status: 'FAILED', failure_code: 'CBS_ERROR' });
    expect(alpha.core.balance(shop.iban)).toBe(shopBefore);
    expect(alpha.core.entries(shop.iban).filter((entry) => entry.reference.startsWith(refundId))).toEqual([]);
  });
});
