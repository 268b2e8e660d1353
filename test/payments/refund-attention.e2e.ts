import { outcomeNeverKnown, startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
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
  const resolve = (
    id: string,
    action: string,
    note = 'checked both cores',
    headers: Record<string, string> = admin(),
  ) => call(t.platform.restUrl, 'POST', `/admin/attention/${id}/resolve`, { headers, body: { action, note } });
  const admin = () => ({ 'x-service-admin-key': t.adminKey });
  const refundOf = async (id: string) =>
    (await t.rest('GET', `/refunds/${id}`, { headers: bearer(merchant.apiKey) })).body as Record<string, any>;
  const refundEvents = (id: string) =>
    t.platform.db
      .knex('payments.outbox')
      .where({ aggregate_type: 'refund', aggregate_id: id })
      .orderBy('sequence')
      .select('kind', 'data');
  const resolutions = (id: string) =>
    t.platform.db.knex('audit.entries').where({ action: 'attention.resolved', target: id });
  /** A refund of `amount` of a paid session whose credit to the payer no core would tell: FAILED, CBS_OUTCOME_UNKNOWN, amount held. */
  const heldRefund = async (payerBank: MinimalBank, amount: number) => {
    const payer = await payerBank.customer({ balance: 20_000 });
    const sessionId = await paidSession(t, merchant.apiKey, shop, payer, 5_000);
    payerBank.core.fail(...outcomeNeverKnown('/accounts/credit', payer.iban));
    const refundId = (await refund(sessionId, amount)).body.refund_id as string;
    expect(await refundSettles(t, merchant.apiKey, refundId)).toMatchObject({
      status: 'FAILED',
      failure_code: 'CBS_OUTCOME_UNKNOWN',
    });
    const [movement] = await eventually(async () => {
      const listed = (await attention()).filter((m) => m.session_id === refundId);
      return listed.length ? listed : undefined;
    }, 'the refund on the attention list');
    expect(movement).toMatchObject({ kind: 'refund', step: 'credit', failure_code: 'CBS_OUTCOME_UNKNOWN' });
    expect((await session(sessionId)).amount_refunded).toBe(amount);
    return { sessionId, refundId, payer };
  };

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

    // Its credit was never sent: the operator cannot have found the payer credited by it.
    const impossible = await resolve(refundId, 'CREDITED');
    expectError(impossible, 400, 'VALIDATION_ERROR');
    expect(impossible.body.error.detail).toMatch(/^action: /);

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

  /**
   * Issue 46: an operator who has checked the cores settles a held refund. CREDITED: the payer
   * has the money, the refund is COMPLETED and the merchant hears it.
   */
  it('CREDITED: the refund is COMPLETED with refund.completed, its amount stays refunded, audited, idempotent', async () => {
    const { sessionId, refundId } = await heldRefund(beta, 3_000);
    const shopAfterDebit = alpha.core.balance(shop.iban);
    // Operators only.
    expectError(await resolve(refundId, 'CREDITED', 'x', bearer(merchant.apiKey)), 403, 'FORBIDDEN');

    const resolved = await resolve(refundId, 'CREDITED', 'the payer’s bank shows the credit booked');
    expect(resolved.status).toBe(200);
    expect(
      responseSchemaOf('POST', '/admin/attention/{session_id}/resolve').safeParse(resolved.body).error,
    ).toBeUndefined();
    expect(resolved.body).toMatchObject({
      session_id: refundId,
      kind: 'refund',
      step: 'done',
      session_status: 'COMPLETED',
      failure_code: null,
      resolution: 'CREDITED: the payer’s bank shows the credit booked',
      credit_booked_at: expect.any(String),
    });
    expect(await refundOf(refundId)).toMatchObject({ status: 'COMPLETED', failure_code: null });
    expect((await refundEvents(refundId)).map((event) => [event.kind, event.data.status])).toEqual([
      ['refund.failed', 'FAILED'],
      ['refund.completed', 'COMPLETED'],
    ]);
    // The amount stays refunded; the merchant's money stays with the payer's bank, owed over the rail.
    expect((await session(sessionId)).amount_refunded).toBe(3_000);
    expect([(await refund(sessionId, 2_001)).status]).toEqual([422]);
    expect(alpha.core.balance(shop.iban)).toBe(shopAfterDebit);
    expect(
      await t.platform.db
        .knex('payments.interbank_obligations')
        .where({ session_id: refundId })
        .select('debtor_bank', 'creditor_bank', 'amount'),
    ).toEqual([{ debtor_bank: alpha.handle, creditor_bank: beta.handle, amount: expect.anything() }]);
    expect(await resolutions(refundId)).toEqual([
      expect.objectContaining({
        actor_name: 'ADMIN_KEY',
        changes: expect.objectContaining({
          status: { from: 'FAILED', to: 'COMPLETED' },
          failure_code: { from: 'CBS_OUTCOME_UNKNOWN', to: null },
        }),
      }),
    ]);
    expect((await attention()).filter((m) => m.session_id === refundId)).toEqual([]);

    // The same finding again: the same answer, nothing twice; the other finding: 409.
    const again = await resolve(refundId, 'CREDITED', 'the payer’s bank shows the credit booked');
    expect([again.status, again.body]).toEqual([200, resolved.body]);
    expect(await resolutions(refundId)).toHaveLength(1);
    expect(await refundEvents(refundId)).toHaveLength(2);
    expectError(await resolve(refundId, 'NOT_CREDITED'), 409, 'REFUND_NOT_HELD');
  });

  it("NOT_CREDITED: the refund FAILS for good with refund.failed, its amount is free at once, and the merchant's debit comes back once", async () => {
    const { sessionId, refundId, payer } = await heldRefund(alpha, 5_000);
    const shopAfterDebit = alpha.core.balance(shop.iban);
    // The core answers again (the reversal of the merchant's debit must get through).
    alpha.core.recover();

    const resolved = await resolve(refundId, 'NOT_CREDITED', 'the payer’s statement shows no credit');
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ step: 'reverse', session_status: 'FAILED', failure_code: 'CBS_ERROR' });
    // At once: the refund's final answer and its amount free again.
    expect(await refundOf(refundId)).toMatchObject({ status: 'FAILED', failure_code: 'CBS_ERROR' });
    expect((await session(sessionId)).amount_refunded).toBe(0);
    expect((await refundEvents(refundId)).map((event) => [event.kind, event.data.failure_code])).toEqual([
      ['refund.failed', 'CBS_OUTCOME_UNKNOWN'],
      ['refund.failed', 'CBS_ERROR'],
    ]);
    expect(await resolutions(refundId)).toEqual([
      expect.objectContaining({
        changes: expect.objectContaining({
          step: { from: 'attention', to: 'reverse' },
          failure_code: { from: 'CBS_OUTCOME_UNKNOWN', to: 'CBS_ERROR' },
        }),
      }),
    ]);
    // Then the engine gives the merchant its debit back, once; the payer was never credited.
    await eventually(
      async () => (alpha.core.balance(shop.iban) === shopAfterDebit + 5_000 ? true : undefined),
      "the merchant's debit given back",
    );
    expect(alpha.core.entries(shop.iban).filter((entry) => entry.reference === `${refundId}:reversal`)).toHaveLength(1);
    expect(alpha.core.balance(payer.iban)).toBe(20_000 - 5_000);
    expect((await session(sessionId)).amount_refunded).toBe(0);

    // Retried: the same answer as the refund now stands, nothing recorded twice.
    const again = await resolve(refundId, 'NOT_CREDITED', 'the payer’s statement shows no credit');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ session_id: refundId, session_status: 'FAILED', failure_code: 'CBS_ERROR' });
    expect(await resolutions(refundId)).toHaveLength(1);
    expect(await refundEvents(refundId)).toHaveLength(2);
    expectError(await resolve(refundId, 'CREDITED'), 409, 'REFUND_NOT_HELD');

    // The whole amount can be refunded again, and it completes.
    const second = await refund(sessionId, 5_000);
    expect(second.status).toBe(201);
    expect(await refundSettles(t, merchant.apiKey, second.body.refund_id)).toMatchObject({ status: 'COMPLETED' });
  });

  it('REFUND_NOT_HELD for a refund that is not held and for another kind of movement; MOVEMENT_NOT_FOUND for an unknown id', async () => {
    const payer = await alpha.customer({ balance: 20_000 });
    const sessionId = await paidSession(t, merchant.apiKey, shop, payer, 2_000);
    const completed = (await refund(sessionId, 1_000)).body.refund_id as string;
    expect(await refundSettles(t, merchant.apiKey, completed)).toMatchObject({ status: 'COMPLETED' });
    for (const action of ['CREDITED', 'NOT_CREDITED']) {
      expectError(await resolve(completed, action), 409, 'REFUND_NOT_HELD');
      expectError(await resolve(sessionId, action), 409, 'REFUND_NOT_HELD');
      expectError(await resolve('rfd_nosuchrefund00000000000', action), 404, 'MOVEMENT_NOT_FOUND');
    }
    expect(await resolutions(completed)).toEqual([]);
  });
});
