import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  refundSettles,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

/**
 * Refunds of mandate charges (issue 51, item 4; API-CONTRACT "Mandates" and "Refunds"), against
 * sandbox bank cores: a COMPLETED charge refunded in parts back to the customer's account it
 * debited, never above the charge amount minus refunds not FAILED (racing refunds included), the
 * charge's amount_refunded, refund.completed with charge_id, the refusals (a FAILED charge,
 * another merchant's or another mandate's charge), Idempotency-Key, and a FAILED refund freeing
 * its amount.
 */
describe('refunds of mandate charges', () => {
  let t: TestPlatform;
  let base: string;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  /** The merchant's settlement account at alpha: charges are paid into it, refunds paid from it. */
  let shop: Customer;
  let merchant: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };
  let receiver: TestWebhookReceiver;

  const today = () => new Date().toISOString().slice(0, 10);
  const chargesPath = (mandateId: string) => `/recurring/mandates/${mandateId}/charges`;
  const refundsPath = (mandateId: string, chargeId: string) => `${chargesPath(mandateId)}/${chargeId}/refunds`;
  const refund = (
    mandateId: string,
    chargeId: string,
    body: Record<string, unknown> = {},
    apiKey = merchant.apiKey,
    headers: Record<string, string> = {},
  ) => call(base, 'POST', refundsPath(mandateId, chargeId), { headers: { ...bearer(apiKey), ...headers }, body });
  const chargeOf = async (mandateId: string, chargeId: string) =>
    (
      (await call(base, 'GET', chargesPath(mandateId), { headers: bearer(merchant.apiKey) })).body.charges as Array<
        Record<string, any>
      >
    ).find((charge) => charge.charge_id === chargeId)!;
  const refundRows = (chargeId: string) =>
    t.platform.db.knex('payments.refunds').where({ charge_id: chargeId }).select('amount', 'status', 'session_id');
  const ledger = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();
  const refundEvents = (id: string) =>
    t.platform.db
      .knex('payments.outbox')
      .where({ aggregate_type: 'refund', aggregate_id: id })
      .orderBy('sequence')
      .select('kind', 'data', 'audience');

  /** An ACTIVE mandate of `customer` for the merchant, charged `amount` once: the mandate and the charge as answered. */
  const charged = async (customer: Customer, amount: number) => {
    const created = await call(base, 'POST', '/recurring/mandates', {
      headers: bearer(merchant.apiKey),
      body: {
        customer_alias: customer.alias,
        amount: 5_000,
        currency: 'LYD',
        interval: 'monthly',
        start_date: today(),
      },
    });
    expect(created.status).toBe(201);
    const mandateId = created.body.mandate_id as string;
    const confirmed = await call(base, 'POST', `/recurring/mandates/${mandateId}/confirm`, {
      body: { otp: customer.otp },
    });
    expect(confirmed.status).toBe(200);
    const charge = await call(base, 'POST', `/recurring/mandates/${mandateId}/charge`, {
      headers: bearer(merchant.apiKey),
      body: { amount, reference: `inv-${mandateId}` },
    });
    expect(charge.status).toBe(201);
    return { mandateId, chargeId: charge.body.charge_id as string, charge: charge.body };
  };
  /** A charge that reached COMPLETED (cross bank: once the merchant's bank confirmed the credit). */
  const completed = async (customer: Customer, amount: number) => {
    const made = await charged(customer, amount);
    await eventually(async () => {
      const charge = await chargeOf(made.mandateId, made.chargeId);
      return charge.status === 'COMPLETED' ? charge : undefined;
    }, `charge ${made.chargeId} to complete`);
    return made;
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    shop = await alpha.customer({ balance: 500_000 });
    receiver = await startTestReceiver();
    merchant = await t.seed.createMerchant({
      name: 'Subscriptions Ltd',
      settlement_iban: shop.iban,
      webhook_url: receiver.url,
    });
    other = await t.seed.createMerchant({ name: 'Other Ltd', settlement_iban: shop.iban });
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

  it('refunds a COMPLETED charge in two parts back to the account it debited, then refuses more than is left', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const { mandateId, chargeId } = await completed(customer, 3_000);
    expect(await chargeOf(mandateId, chargeId)).toMatchObject({ amount: 3_000, amount_refunded: 0 });
    expect(await alpha.balance(customer.iban)).toBe(17_000);
    const shopBefore = await alpha.balance(shop.iban);

    const first = await refund(mandateId, chargeId, { amount: 1_000, reason: 'Paused', reference: 'rma-1' });
    expect(first.status).toBe(201);
    expect(
      responseSchemaOf('POST', '/recurring/mandates/{mandate_id}/charges/{charge_id}/refunds').safeParse(first.body)
        .error,
    ).toBe(undefined);
    expect(first.body).toEqual({
      refund_id: expect.stringMatching(/^rfd_[0-9A-Za-z]{24}$/),
      session_id: null,
      charge_id: chargeId,
      mandate_id: mandateId,
      amount: 1_000,
      currency: 'LYD',
      status: 'COMPLETED',
      reason: 'Paused',
      reference: 'rma-1',
      failure_code: null,
      created_at: expect.any(String),
      completed_at: expect.any(String),
      livemode: true,
      metadata: {},
    });
    const firstId = first.body.refund_id as string;
    expect(await ledger(alpha, firstId)).toEqual([`CREDIT ${customer.iban} 1000`, `DEBIT ${shop.iban} 1000`]);
    expect(await alpha.balance(customer.iban)).toBe(18_000);
    expect(await chargeOf(mandateId, chargeId)).toMatchObject({ status: 'COMPLETED', amount_refunded: 1_000 });

    const second = await refund(mandateId, chargeId, { amount: 1_500 });
    expect(second.body).toMatchObject({ status: 'COMPLETED', amount: 1_500, charge_id: chargeId });
    expect(await alpha.balance(customer.iban)).toBe(19_500);
    expect(await alpha.balance(shop.iban)).toBe(shopBefore - 2_500);
    expect(await chargeOf(mandateId, chargeId)).toMatchObject({ amount_refunded: 2_500 });

    // 500 is left: more is refused and nothing moves.
    expectError(await refund(mandateId, chargeId, { amount: 600 }), 422, 'REFUND_AMOUNT_EXCEEDED');
    expect(await alpha.balance(customer.iban)).toBe(19_500);
    expect(await refundRows(chargeId)).toHaveLength(2);

    // The merchant hears it, with the charge named; GET /refunds/{id} and the charge's list answer the same records.
    const webhook = await receiver.waitFor(
      (w) => w.envelope.event === 'refund.completed' && w.envelope.data.refund_id === firstId,
      'refund.completed',
    );
    expect(webhook.envelope.data).toEqual({
      refund_id: firstId,
      session_id: null,
      charge_id: chargeId,
      mandate_id: mandateId,
      livemode: true,
      status: 'COMPLETED',
      amount: 1_000,
      currency: 'LYD',
      reference: 'rma-1',
      metadata: {},
      merchant_id: merchant.merchantId,
    });
    expect((await refundEvents(firstId)).map((event) => [event.kind, event.audience])).toEqual([
      ['refund.completed', merchant.merchantId],
    ]);
    expect((await call(base, 'GET', `/refunds/${firstId}`, { headers: bearer(merchant.apiKey) })).body).toEqual(
      first.body,
    );
    const listed = await call(base, 'GET', refundsPath(mandateId, chargeId), { headers: bearer(merchant.apiKey) });
    expect(
      responseSchemaOf('GET', '/recurring/mandates/{mandate_id}/charges/{charge_id}/refunds').safeParse(listed.body)
        .error,
    ).toBe(undefined);
    expect(listed.body.refunds.map((r: { refund_id: string }) => r.refund_id)).toEqual([
      second.body.refund_id,
      firstId,
    ]);
    // The rest, with no amount: all that is left.
    expect((await refund(mandateId, chargeId)).body).toMatchObject({ amount: 500, status: 'COMPLETED' });
    expect(await chargeOf(mandateId, chargeId)).toMatchObject({ amount_refunded: 3_000 });
    expectError(await refund(mandateId, chargeId, { amount: 1 }), 422, 'REFUND_AMOUNT_EXCEEDED');
  });

  it('cross bank: paid over the rail back to the customer at the other bank, and owed between the banks', async () => {
    const customer = await beta.customer({ balance: 20_000 });
    const { mandateId, chargeId } = await completed(customer, 4_000);
    const answer = await refund(mandateId, chargeId);
    expect(answer.status).toBe(201);
    const settled = await refundSettles(t, merchant.apiKey, answer.body.refund_id as string);
    expect(settled).toMatchObject({ status: 'COMPLETED', amount: 4_000, charge_id: chargeId });
    expect(await beta.balance(customer.iban)).toBe(20_000);
    expect(
      await t.platform.db
        .knex('payments.interbank_obligations')
        .where({ session_id: answer.body.refund_id })
        .select('debtor_bank', 'creditor_bank', 'amount'),
    ).toEqual([{ debtor_bank: alpha.handle, creditor_bank: beta.handle, amount: '4000' }]);
  });

  it("a FAILED refund (the customer's bank refuses the credit) gives its amount back to the charge", async () => {
    const customer = await beta.customer({ balance: 20_000 });
    const { mandateId, chargeId } = await completed(customer, 2_000);
    const shopBefore = await alpha.balance(shop.iban);
    beta.sandbox.injectFaults({ errorRate: 1, errorStatus: 422, operations: ['credit'], times: 1 });
    const refundId = (await refund(mandateId, chargeId)).body.refund_id as string;
    expect(await refundSettles(t, merchant.apiKey, refundId)).toMatchObject({ status: 'FAILED', charge_id: chargeId });
    expect(await alpha.balance(shop.iban)).toBe(shopBefore);
    expect(await beta.balance(customer.iban)).toBe(18_000);
    expect(await chargeOf(mandateId, chargeId)).toMatchObject({ amount_refunded: 0 });
    expect((await refundEvents(refundId)).map((event) => event.kind)).toEqual(['refund.failed']);
    // Refundable again.
    const again = await refund(mandateId, chargeId);
    expect(await refundSettles(t, merchant.apiKey, again.body.refund_id as string)).toMatchObject({
      status: 'COMPLETED',
      amount: 2_000,
    });
    expect(await beta.balance(customer.iban)).toBe(20_000);
  });

  it("refuses a FAILED charge, another merchant's charge and another mandate's, and nothing moves", async () => {
    const broke = await alpha.customer({ balance: 0 });
    const failed = await charged(broke, 1_000);
    expect(failed.charge).toMatchObject({ status: 'FAILED', failure_code: 'INSUFFICIENT_FUNDS' });
    expectError(await refund(failed.mandateId, failed.chargeId), 422, 'REFUND_NOT_ALLOWED');

    const customer = await alpha.customer({ balance: 20_000 });
    const paid = await completed(customer, 2_000);
    const elsewhere = await charged(await alpha.customer({ balance: 20_000 }), 2_000);
    expectError(await refund(paid.mandateId, paid.chargeId, {}, other.apiKey), 404, 'MANDATE_CHARGE_NOT_FOUND');
    expectError(await refund(elsewhere.mandateId, paid.chargeId), 404, 'MANDATE_CHARGE_NOT_FOUND');
    expectError(await refund(paid.mandateId, 'chg_000000000000000000000000'), 404, 'MANDATE_CHARGE_NOT_FOUND');
    expectError(
      await call(base, 'GET', refundsPath(paid.mandateId, paid.chargeId), { headers: bearer(other.apiKey) }),
      404,
      'MANDATE_CHARGE_NOT_FOUND',
    );
    for (const id of [failed.chargeId, paid.chargeId]) expect(await refundRows(id)).toEqual([]);
    expect(await alpha.balance(customer.iban)).toBe(18_000);
    expect(await chargeOf(paid.mandateId, paid.chargeId)).toMatchObject({ amount_refunded: 0 });
  });

  it('answers the same refund to the same Idempotency-Key, and refuses another request with it', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const { mandateId, chargeId } = await completed(customer, 3_000);
    const key = { 'idempotency-key': `chg-rfd-${chargeId}` };
    const first = await refund(mandateId, chargeId, { amount: 1_000 }, merchant.apiKey, key);
    expect(first.status).toBe(201);
    const again = await refund(mandateId, chargeId, { amount: 1_000 }, merchant.apiKey, key);
    expect([again.status, again.body.refund_id]).toEqual([201, first.body.refund_id]);
    expectError(
      await refund(mandateId, chargeId, { amount: 2_000 }, merchant.apiKey, key),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await refundRows(chargeId)).toHaveLength(1);
    expect(await alpha.balance(customer.iban)).toBe(18_000);
    expect(await chargeOf(mandateId, chargeId)).toMatchObject({ amount_refunded: 1_000 });
  });

  it('racing refunds of one charge never add up to more than it', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const { mandateId, chargeId } = await completed(customer, 3_000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(mandateId, chargeId, { amount: 1_000 })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 422, 422]);
    for (const refused of answers.filter((answer) => answer.status === 422))
      expect(refused.body.error.code).toBe('REFUND_AMOUNT_EXCEEDED');
    expect(await chargeOf(mandateId, chargeId)).toMatchObject({ amount_refunded: 3_000 });
    expect(await alpha.balance(customer.iban)).toBe(20_000);
    const rows = await refundRows(chargeId);
    expect(rows.reduce((sum: number, row: { amount: string }) => sum + Number(row.amount), 0)).toBe(3_000);
    expect(rows.every((row: { session_id: string | null }) => row.session_id === null)).toBe(true);
  });
});
