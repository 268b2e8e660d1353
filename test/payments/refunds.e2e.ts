import { startTestBanks, TEST_OTP, type TestBanks } from '@gateway/bank-sandbox';
import { createLogger } from '@gateway/kernel';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  FAST_ENGINE,
  paidSession,
  refundSettles,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  serviceSignature,
  standardWebhooksValid,
  startTestReceiver,
  type TestWebhookReceiver,
} from '../support/webhook-receiver';

/**
 * Refunds through the payment engine (API-CONTRACT "Refunds and ending a session early"), against
 * sandbox bank cores: the money leaves the merchant's settlement account and reaches the payer's
 * account (same bank internal, cross bank over the rail with an interbank obligation), partial
 * refunds until the session amount is used up, racing refunds that never exceed it, the merchant's
 * bank refusing the debit, the payer's bank refusing the credit, the signed webhook, test mode.
 */
describe('refunds', () => {
  let t: TestPlatform;
  let base: string;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  /** The merchant's settlement account at alpha, where its sessions are paid and its refunds paid from. */
  let shop: Customer;
  let merchant: { merchantId: string; apiKey: string; webhookSecret: string };
  let receiver: TestWebhookReceiver;

  const refund = (sessionId: string, body: Record<string, unknown> = {}, apiKey = merchant.apiKey) =>
    call(base, 'POST', `/payments/sessions/${sessionId}/refunds`, { headers: bearer(apiKey), body });
  const session = async (id: string, apiKey = merchant.apiKey) =>
    (await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(apiKey) })).body;
  const ledger = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();
  const obligations = (id: string) =>
    t.platform.db
      .knex('payments.interbank_obligations')
      .where({ session_id: id })
      .select('debtor_bank', 'creditor_bank', 'amount');
  const refundEvents = (id: string) =>
    t.platform.db
      .knex('payments.outbox')
      .where({ aggregate_type: 'refund', aggregate_id: id })
      .orderBy('sequence')
      .select('kind', 'data', 'audience');

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    shop = await alpha.customer({ balance: 500_000 });
    receiver = await startTestReceiver();
    merchant = await t.seed.createMerchant({
      name: 'Refund Shop',
      settlement_iban: shop.iban,
      webhook_url: receiver.url,
    });
  });
  afterEach(() => {
    alpha.sandbox.clearFaults();
    beta.sandbox.clearFaults();
  });
  afterAll(async () => {
    await receiver.stop();
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await t.stop();
  });

  it('same bank, full: the whole amount goes back from the settlement account to the payer, COMPLETED at once; nothing is left to refund', async () => {
    const payer = await alpha.customer({ balance: 100_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 12_000, { reference: 'order-7' });
    const shopBefore = await alpha.balance(shop.iban);
    expect(await alpha.balance(payer.iban)).toBe(88_000);

    const answer = await refund(id, { reason: 'Returned in full', reference: 'rma-7' });
    expect(answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/payments/sessions/{session_id}/refunds').safeParse(answer.body).error).toBe(
      undefined,
    );
    expect(answer.body).toEqual({
      refund_id: expect.stringMatching(/^rfd_[0-9A-Za-z]{24}$/),
      session_id: id,
      amount: 12_000,
      currency: 'LYD',
      status: 'COMPLETED',
      reason: 'Returned in full',
      reference: 'rma-7',
      failure_code: null,
      created_at: expect.any(String),
      completed_at: expect.any(String),
      livemode: true,
      metadata: {},
    });
    const refundId = answer.body.refund_id as string;

    expect(await alpha.balance(payer.iban)).toBe(100_000);
    expect(await alpha.balance(shop.iban)).toBe(shopBefore - 12_000);
    expect(await ledger(alpha, refundId)).toEqual([`CREDIT ${payer.iban} 12000`, `DEBIT ${shop.iban} 12000`]);
    expect(await obligations(refundId)).toEqual([]);
    expect(await session(id)).toMatchObject({ status: 'COMPLETED', amount: 12_000, amount_refunded: 12_000 });

    // Nothing is left: refused, and nothing moves.
    expectError(await refund(id), 422, 'REFUND_AMOUNT_EXCEEDED');
    expectError(await refund(id, { amount: 1 }), 422, 'REFUND_AMOUNT_EXCEEDED');
    expect(await alpha.balance(payer.iban)).toBe(100_000);

    expect((await call(base, 'GET', `/refunds/${refundId}`, { headers: bearer(merchant.apiKey) })).body).toEqual(
      answer.body,
    );
    const listed = await call(base, 'GET', `/payments/sessions/${id}/refunds`, { headers: bearer(merchant.apiKey) });
    expect(responseSchemaOf('GET', '/payments/sessions/{session_id}/refunds').safeParse(listed.body).error).toBe(
      undefined,
    );
    expect(listed.body).toEqual({ refunds: [answer.body], pagination: { next_cursor: null, has_more: false } });
  });

  it("sends refund.completed on the refund's own aggregate, signed with the merchant's secret", async () => {
    const payer = await alpha.customer({ balance: 50_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 3_000);
    const refundId = (await refund(id, { reference: 'rma-hook' })).body.refund_id as string;
    const webhook = await receiver.waitFor(
      (w) => w.envelope.event === 'refund.completed' && w.envelope.data.refund_id === refundId,
      'refund.completed',
    );
    expect(webhook.headers['x-service-signature']).toBe(serviceSignature(merchant.webhookSecret, webhook.body));
    expect(standardWebhooksValid(merchant.webhookSecret, webhook)).toBe(true);
    // The refund's first event: its own sequence, not the session's (whose events are 1 to 3).
    expect(JSON.parse(webhook.body)).toMatchObject({ livemode: true, sequence: 1 });
    expect(webhook.envelope.data).toEqual({
      refund_id: refundId,
      session_id: id,
      livemode: true,
      status: 'COMPLETED',
      amount: 3_000,
      currency: 'LYD',
      reference: 'rma-hook',
      metadata: {},
      merchant_id: merchant.merchantId,
    });
    expect((await refundEvents(refundId)).map((event) => event.kind)).toEqual(['refund.completed']);
  });

  it("cross bank, partial: each refund is debited at the merchant's bank, credited over the rail at the payer's, confirmed, and owed between the banks", async () => {
    const payer = await beta.customer({ balance: 100_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 20_000);
    const shopBefore = await alpha.balance(shop.iban);

    const first = await refund(id, { amount: 5_000, reason: 'One item missing' });
    expect(first.status).toBe(201);
    // Debited at alpha, credited at beta: complete once beta confirms the rail credit.
    expect(first.body).toMatchObject({ amount: 5_000, status: 'PROCESSING', completed_at: null });
    const firstId = first.body.refund_id as string;
    expect(await refundSettles(t, merchant.apiKey, firstId)).toMatchObject({
      status: 'COMPLETED',
      completed_at: expect.any(String),
    });
    expect(await session(id)).toMatchObject({ amount_refunded: 5_000 });

    // No amount: all that is left.
    const rest = await refund(id);
    expect(rest.body).toMatchObject({ amount: 15_000 });
    const restId = rest.body.refund_id as string;
    expect(await refundSettles(t, merchant.apiKey, restId)).toMatchObject({ status: 'COMPLETED' });

    expect(await beta.balance(payer.iban)).toBe(100_000);
    expect(await alpha.balance(shop.iban)).toBe(shopBefore - 20_000);
    expect(await ledger(alpha, firstId)).toEqual([`DEBIT ${shop.iban} 5000`]);
    expect(await ledger(beta, firstId)).toEqual([`CREDIT ${payer.iban} 5000`]);
    expect(await ledger(beta, restId)).toEqual([`CREDIT ${payer.iban} 15000`]);
    // The merchant's bank owes the payer's: netted by settlement like any obligation.
    expect(await obligations(firstId)).toEqual([
      { debtor_bank: alpha.handle, creditor_bank: beta.handle, amount: '5000' },
    ]);
    expect(await obligations(restId)).toEqual([
      { debtor_bank: alpha.handle, creditor_bank: beta.handle, amount: '15000' },
    ]);
    expect(await session(id)).toMatchObject({ amount_refunded: 20_000 });
    expectError(await refund(id, { amount: 1 }), 422, 'REFUND_AMOUNT_EXCEEDED');

    const page = await call(base, 'GET', `/payments/sessions/${id}/refunds?limit=1`, {
      headers: bearer(merchant.apiKey),
    });
    expect(page.body.refunds.map((r: any) => r.refund_id)).toEqual([restId]);
    expect(page.body.pagination).toEqual({ next_cursor: restId, has_more: true });
    const next = await call(base, 'GET', `/payments/sessions/${id}/refunds?limit=1&cursor=${restId}`, {
      headers: bearer(merchant.apiKey),
    });
    expect(next.body.refunds.map((r: any) => r.refund_id)).toEqual([firstId]);
    for (const refundId of [firstId, restId])
      expect((await refundEvents(refundId)).map((event) => event.kind)).toEqual(['refund.completed']);
  });

  it('racing refunds never add up to more than the session amount', async () => {
    const payer = await alpha.customer({ balance: 100_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 10_000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(id, { amount: 3_000 })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 422, 422]);
    for (const refused of answers.filter((answer) => answer.status === 422))
      expect(refused.body.error.code).toBe('REFUND_AMOUNT_EXCEEDED');
    expect(await session(id)).toMatchObject({ amount_refunded: 9_000 });
    expect(await alpha.balance(payer.iban)).toBe(90_000 + 9_000);

    // Three full refunds at once: one takes the last 1,000, the others are refused.
    const full = await Promise.all(Array.from({ length: 3 }, () => refund(id)));
    expect(full.map((answer) => answer.status).sort()).toEqual([201, 422, 422]);
    expect(full.find((answer) => answer.status === 201)!.body).toMatchObject({ amount: 1_000, status: 'COMPLETED' });
    expect(await session(id)).toMatchObject({ amount_refunded: 10_000 });
    expect(await alpha.balance(payer.iban)).toBe(100_000);
    const rows = await t.platform.db.knex('payments.refunds').where({ session_id: id }).select('amount', 'status');
    expect(rows.reduce((sum: number, row: { amount: string }) => sum + Number(row.amount), 0)).toBe(10_000);
  });

  it("the merchant's bank refuses the debit (insufficient funds): FAILED with refund.failed, nothing credited, the amount may be refunded again", async () => {
    const empty = await alpha.customer({ balance: 0 });
    const payee = await alpha.customer({ balance: 0 });
    const poor = await t.seed.createMerchant({ name: 'Empty Till', settlement_iban: empty.iban });
    const payer = await alpha.customer({ balance: 50_000 });
    const id = await paidSession(t, poor.apiKey, payee, payer, 7_000);

    const answer = await refund(id, { reference: 'rma-poor' }, poor.apiKey);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ status: 'FAILED', failure_code: 'INSUFFICIENT_FUNDS', completed_at: null });
    const refundId = answer.body.refund_id as string;
    expect(await ledger(alpha, refundId)).toEqual([]);
    expect(await alpha.balance(payer.iban)).toBe(43_000);
    expect(await alpha.balance(empty.iban)).toBe(0);
    expect(await session(id, poor.apiKey)).toMatchObject({ amount_refunded: 0 });
    expect(await refundEvents(refundId)).toEqual([
      {
        kind: 'refund.failed',
        audience: poor.merchantId,
        data: expect.objectContaining({ refund_id: refundId, status: 'FAILED', failure_code: 'INSUFFICIENT_FUNDS' }),
      },
    ]);
    // FAILED frees its amount: the whole amount can be asked again (and fails again for the same reason).
    expect((await refund(id, {}, poor.apiKey)).body).toMatchObject({ amount: 7_000, status: 'FAILED' });
  });

  it("the payer's bank refuses the credit: the debit is given back to the merchant, FAILED, nothing owed", async () => {
    const payer = await beta.customer({ balance: 60_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 6_000);
    const shopBefore = await alpha.balance(shop.iban);
    beta.sandbox.injectFaults({ errorRate: 1, errorStatus: 422, operations: ['credit'], times: 1 });

    const refundId = (await refund(id)).body.refund_id as string;
    const failed = await refundSettles(t, merchant.apiKey, refundId);
    expect(failed).toMatchObject({ status: 'FAILED', failure_code: expect.any(String), completed_at: null });
    expect(await ledger(alpha, refundId)).toEqual([`DEBIT ${shop.iban} 6000`]);
    expect(await ledger(alpha, `${refundId}:reversal`)).toEqual([`CREDIT ${shop.iban} 6000`]);
    expect(await ledger(beta, refundId)).toEqual([]);
    expect(await alpha.balance(shop.iban)).toBe(shopBefore);
    expect(await beta.balance(payer.iban)).toBe(54_000);
    expect(await obligations(refundId)).toEqual([]);
    expect(await session(id)).toMatchObject({ amount_refunded: 0 });
    expect((await refundEvents(refundId)).map((event) => event.kind)).toEqual(['refund.failed']);
  });

  describe('test mode', () => {
    let ledgerOfTestBanks: TestBanks;
    beforeAll(async () => {
      ledgerOfTestBanks = await startTestBanks({ db: t.platform.db, logger: createLogger('test', 'silent') });
      ledgerOfTestBanks.core(alpha);
    });
    afterAll(() => ledgerOfTestBanks.stop());

    it("a test merchant's refund moves money in the test world only: the sandbox cores' live balances never move", async () => {
      const testShop = await t.seed.createMerchant({ name: 'Test Shop', mode: 'test', settlement_iban: shop.iban });
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(testShop.apiKey),
        body: { amount: 4_000, currency: 'LYD', destination: { type: 'alias', value: shop.alias } },
      });
      const id = created.body.session_id as string;
      const payer = `success@${alpha.handle}`;
      expect(
        (
          await t.rest('POST', `/pay/${id}/authorize`, {
            body: { payer: { type: 'alias', value: payer }, otp: TEST_OTP },
          })
        ).status,
      ).toBe(200);
      const shopLive = await alpha.balance(shop.iban);
      const shopTest = (await ledgerOfTestBanks.balance(alpha.handle, shop.iban))!;

      const answer = await refund(id, {}, testShop.apiKey);
      expect(answer.body).toMatchObject({ amount: 4_000, status: 'COMPLETED', livemode: false });
      expect(await ledgerOfTestBanks.balance(alpha.handle, shop.iban)).toBe(shopTest - 4_000);
      expect(await alpha.balance(shop.iban)).toBe(shopLive);
      expect(await ledger(alpha, answer.body.refund_id)).toEqual([]);
      // A live key never sees the test refund.
      expectError(
        await call(base, 'GET', `/refunds/${answer.body.refund_id}`, { headers: bearer(merchant.apiKey) }),
        404,
        'REFUND_NOT_FOUND',
      );
    });
  });
});
