import { outcomeNeverKnown, startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { bearer, eventually, SHORT_DEADLINES_ENGINE } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Mandate charges through bank cores written from the spec alone (minimal JSON answers, their own
 * refusal shapes, no credit confirmations of their own): the charge's chg_ reference is what the
 * cores see, and a charge ends as a session does, with no money kept or lost.
 */
describe('mandate charges with bank cores written from the spec alone', () => {
  let t: TestPlatform;
  let alpha: MinimalBank;
  let beta: MinimalBank;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: SHORT_DEADLINES_ENGINE });
    alpha = await startMinimalBank(t);
    beta = await startMinimalBank(t);
  });
  const extraBanks: MinimalBank[] = [];
  afterAll(async () => {
    for (const bank of [alpha, beta, ...extraBanks]) await bank.core.stop();
    await t.stop();
  });

  /** An ACTIVE monthly mandate of `customer` for a merchant whose settlement account is `shop`. */
  const activeMandate = async (customer: MinimalCustomer, shop: MinimalCustomer) => {
    const merchant = await t.seed.createMerchant({ name: 'Spec Gym', settlement_iban: shop.iban });
    const created = await t.rest('POST', '/recurring/mandates', {
      headers: bearer(merchant.apiKey),
      body: {
        customer_alias: customer.alias,
        amount: 5_000,
        currency: 'LYD',
        interval: 'monthly',
        description: 'Membership',
        start_date: '2026-01-01',
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.mandate_id as string;
    const confirmed = await t.rest('POST', `/recurring/mandates/${id}/confirm`, { body: { otp: customer.otp } });
    expect([confirmed.status, confirmed.body.status]).toEqual([200, 'ACTIVE']);
    return { id, apiKey: merchant.apiKey };
  };
  const charge = (mandate: { id: string; apiKey: string }, amount: number, reference: string) =>
    t.rest('POST', `/recurring/mandates/${mandate.id}/charge`, {
      headers: bearer(mandate.apiKey),
      body: { amount, reference },
    });
  const chargeReaches = (mandate: { id: string; apiKey: string }, chargeId: string, status: string) =>
    eventually(async () => {
      const list = await t.rest('GET', `/recurring/mandates/${mandate.id}/charges`, {
        headers: bearer(mandate.apiKey),
      });
      const found = (list.body.charges as Array<Record<string, any>>).find((c) => c.charge_id === chargeId);
      return found?.status === status ? found : undefined;
    }, `charge ${chargeId} ${status}`);
  const coreCalls = (bank: MinimalBank, path: string, reference: string) =>
    bank.core.calls.filter((call) => call.path === path && call.body?.reference === reference);
  const chargeEvents = async (mandateId: string) =>
    (await t.platform.db.knex('payments.outbox').where({ aggregate_id: mandateId }).orderBy('sequence')).map(
      (row) => row.kind,
    );

  it('same bank: debited and credited once with the spec fields only, COMPLETED', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const shop = await alpha.customer({ balance: 0 });
    const mandate = await activeMandate(customer, shop);
    const charged = await charge(mandate, 4_500, 'jan');
    expect(charged.status).toBe(201);
    const chargeId = charged.body.charge_id as string;
    await chargeReaches(mandate, chargeId, 'COMPLETED');
    const [debit, ...moreDebits] = coreCalls(alpha, '/accounts/debit', chargeId);
    expect(moreDebits).toEqual([]);
    expect(Object.keys(debit!.body!).sort()).toEqual(['amount', 'currency', 'description', 'iban', 'reference']);
    expect(debit!.body).toMatchObject({ iban: customer.iban, amount: 4_500, currency: 'LYD' });
    expect(coreCalls(alpha, '/accounts/credit', chargeId)).toHaveLength(1);
    expect([alpha.core.balance(customer.iban), alpha.core.balance(shop.iban)]).toEqual([15_500, 4_500]);
  });

  it('cross bank with a creditor core that never confirms: the credit is sent again with its chg_ reference, then the charge completes on the evidence; a late confirmation moves nothing', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const shop = await beta.customer({ balance: 0 });
    const mandate = await activeMandate(customer, shop);
    const chargeId = (await charge(mandate, 5_000, 'feb')).body.charge_id as string;
    const done = await chargeReaches(mandate, chargeId, 'COMPLETED');
    expect(done.settlement_type).toBe('rail');
    const credits = coreCalls(beta, '/accounts/credit', chargeId);
    expect(credits.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(credits[0]!.body!).sort()).toEqual(['amount', 'currency', 'description', 'iban', 'reference']);
    expect(coreCalls(alpha, '/accounts/debit', chargeId)).toHaveLength(1);
    expect([alpha.core.balance(customer.iban), beta.core.balance(shop.iban)]).toEqual([15_000, 5_000]);
    // The creditor bank confirms late, naming the reference its credit carried.
    const confirmation = {
      payment_reference: chargeId,
      session_id: chargeId,
      creditor_iban: shop.iban,
      amount: 5_000,
      currency: 'LYD',
      rrn: 'RRN-CHG-LATE',
    };
    const late = await t.rest('POST', '/service/callbacks/v1/payment/credit-confirmed', {
      headers: { 'x-service-internal-key': beta.internalKey },
      body: confirmation,
    });
    expect(late.status).toBe(200);
    expect(late.body.duplicate).toBe(false);
    expect(beta.core.balance(shop.iban)).toBe(5_000);
    expect((await chargeEvents(mandate.id)).filter((kind) => kind === 'mandate.charge.completed')).toHaveLength(1);
  });

  it('cross bank, the creditor confirms with the reference as payment_reference and its own id as session_id: COMPLETED on the confirmation', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const shop = await beta.customer({ balance: 0 });
    const mandate = await activeMandate(customer, shop);
    const chargeId = (await charge(mandate, 3_000, 'mar')).body.charge_id as string;
    await eventually(
      async () => (coreCalls(beta, '/accounts/credit', chargeId).length ? true : undefined),
      'the rail credit',
    );
    const confirmation = {
      payment_reference: chargeId,
      session_id: 'TRF-778812',
      creditor_iban: shop.iban,
      amount: 3_000,
      currency: 'LYD',
      rrn: 'RRN-CHG-1',
    };
    const confirmed = await t.rest('POST', '/service/callbacks/v1/payment/credit-confirmed', {
      headers: { 'x-service-internal-key': beta.internalKey },
      body: confirmation,
    });
    expect([confirmed.status, confirmed.body.duplicate]).toEqual([200, false]);
    await chargeReaches(mandate, chargeId, 'COMPLETED');
    expect(
      await t.platform.db.knex('payments.payment_executions').where({ movement_id: chargeId }).first(),
    ).toMatchObject({ rrn: 'RRN-CHG-1' });
  });

  it("answers that stay unusable: the charge FAILS (CBS_OUTCOME_UNKNOWN), holds its period while the operator's attention list shows it as a mandate charge; a refund gives the money back once and frees the period", async () => {
    // A core of its own: the faults queued here would otherwise meet the next test's calls.
    const delta = await startMinimalBank(t);
    extraBanks.push(delta);
    const customer = await delta.customer({ balance: 20_000 });
    const shop = await delta.customer({ balance: 0 });
    const mandate = await activeMandate(customer, shop);
    // Booked, then only redirects and HTML for the debit, and no statement: nothing can be established.
    delta.core.fail(
      { path: '/accounts/debit', kind: 'book-then-status', status: 302, body: '<html>moved</html>' },
      ...outcomeNeverKnown('/accounts/debit', customer.iban),
    );
    const chargeId = (await charge(mandate, 2_000, 'may')).body.charge_id as string;
    expect((await chargeReaches(mandate, chargeId, 'FAILED')).failure_code).toBe('CBS_OUTCOME_UNKNOWN');
    const admin = { 'x-service-admin-key': t.adminKey };
    const listed = await eventually(async () => {
      const list = await t.rest('GET', '/admin/attention?limit=100', { headers: admin });
      return (list.body.movements as Array<Record<string, any>>).find((m) => m.session_id === chargeId);
    }, 'the charge on the attention list');
    expect(listed).toMatchObject({
      kind: 'mandate_charge',
      step: 'resolve_debit',
      amount: 2_000,
      currency: 'LYD',
      debtor_iban: customer.iban,
      session_status: 'FAILED',
    });
    expect(delta.core.balance(customer.iban)).toBe(18_000);
    // The customer was debited while the merchant was told FAILED: a second charge of the period
    // would take twice what the mandate allows for it.
    const second = await charge(mandate, 2_000, 'may-again');
    expect([second.status, second.body.error?.code]).toEqual([422, 'MANDATE_LIMIT_EXCEEDED']);

    const resolved = await t.rest('POST', `/admin/attention/${chargeId}/resolve`, {
      headers: admin,
      body: { action: 'REFUND_PAYER', note: 'the core team saw the debit booked' },
    });
    expect([resolved.status, resolved.body.kind, resolved.body.step]).toEqual([200, 'mandate_charge', 'reverse']);
    await eventually(async () => (delta.core.balance(customer.iban) === 20_000 ? true : undefined), 'the refund');
    expect(delta.core.balance(shop.iban)).toBe(0);
    // Given back: the outcome is established and the period is free again.
    const established = await eventually(async () => {
      const found = await chargeReaches(mandate, chargeId, 'FAILED');
      return found.failure_code === 'CBS_ERROR' ? found : undefined;
    }, 'the charge established');
    expect(established.failure_code).toBe('CBS_ERROR');
    expect((await charge(mandate, 2_000, 'may-retry')).status).toBe(201);
    const again = await t.rest('POST', `/admin/attention/${chargeId}/resolve`, {
      headers: admin,
      body: { action: 'CLOSE', note: 'twice' },
    });
    expect([again.status, again.body.error.code]).toEqual([404, 'MOVEMENT_NOT_FOUND']);
  });

  it('a core refusing the debit with 422 {"error":"INSUFFICIENT_FUNDS"}: the charge FAILS with INSUFFICIENT_FUNDS, nothing moves, the period is free again', async () => {
    const customer = await alpha.customer({ balance: 1_000 });
    const shop = await beta.customer({ balance: 0 });
    const mandate = await activeMandate(customer, shop);
    const chargeId = (await charge(mandate, 4_000, 'apr')).body.charge_id as string;
    const failed = await chargeReaches(mandate, chargeId, 'FAILED');
    expect(failed.failure_code).toBe('INSUFFICIENT_FUNDS');
    expect([alpha.core.balance(customer.iban), beta.core.balance(shop.iban)]).toEqual([1_000, 0]);
    expect(coreCalls(beta, '/accounts/credit', chargeId)).toEqual([]);
    expect((await charge(mandate, 900, 'apr-2')).status).toBe(201);
  });
});
