import { TEST_OTP } from '@gateway/bank-sandbox';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The mandate REST surface as a merchant's client sees it (API-CONTRACT "Mandates"): the whole
 * life of a cross-bank mandate over REST only, both lists paged with limit and cursor, charge
 * replays by Idempotency-Key, and the refusals of the REST layer itself (unknown fields, bad
 * enums, keys of the wrong kind), each with the spec's error body.
 */
describe('mandates over REST', () => {
  let t: TestPlatform;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let merchant: { merchantId: string; apiKey: string };

  const rest = (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ) => call(t.platform.restUrl, method, path, options);
  const as = (key = merchant.apiKey, extra: Record<string, string> = {}) => ({ ...bearer(key), ...extra });
  const today = () => new Date().toISOString().slice(0, 10);
  const body = (customer: Customer, patch: Record<string, unknown> = {}) => ({
    customer_alias: customer.alias,
    amount: 3_000,
    currency: 'LYD',
    interval: 'monthly',
    description: 'Magazine',
    start_date: today(),
    ...patch,
  });
  const activeMandate = async (customer: Customer, key = merchant.apiKey) => {
    const created = await rest('POST', '/recurring/mandates', { headers: as(key), body: body(customer) });
    expect(created.status).toBe(201);
    expect(
      (await rest('POST', `/recurring/mandates/${created.body.mandate_id}/confirm`, { body: { otp: customer.otp } }))
        .status,
    ).toBe(200);
    return created.body.mandate_id as string;
  };
  const charge = (id: string, amount: number, reference: string, extra: Record<string, string> = {}) =>
    rest('POST', `/recurring/mandates/${id}/charge`, {
      headers: as(merchant.apiKey, extra),
      body: { amount, reference },
    });

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    const shop = await alpha.customer({ balance: 0 });
    merchant = await t.seed.createMerchant({ name: 'Magazines Ltd', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await t.stop();
  });

  it('the whole life of a cross-bank mandate over REST: create, replay, read, confirm, charge, a refused second charge, the test clock, cancel', async () => {
    const customer = await beta.customer({ balance: 20_000, otp: '314159' });
    const key = { 'idempotency-key': `rest-mdt-${Date.now()}` };
    const created = await rest('POST', '/recurring/mandates', {
      headers: as(merchant.apiKey, key),
      body: body(customer),
    });
    expect(created.status).toBe(201);
    const id = created.body.mandate_id as string;
    const replay = await rest('POST', '/recurring/mandates', {
      headers: as(merchant.apiKey, key),
      body: body(customer),
    });
    expect([replay.status, replay.body]).toEqual([201, created.body]);
    expectError(
      await rest('POST', '/recurring/mandates', {
        headers: as(merchant.apiKey, key),
        body: body(customer, { description: 'Other' }),
      }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );

    const read = await rest('GET', `/recurring/mandates/${id}`, { headers: as() });
    expect(read.status).toBe(200);
    expect(responseSchemaOf('GET', '/recurring/mandates/{mandate_id}').safeParse(read.body).error).toBeUndefined();
    expect(read.body).toMatchObject({
      mandate_id: id,
      status: 'PENDING_CONFIRMATION',
      customer_bank: beta.handle,
      interval: 'monthly',
      cancelled_at: null,
      revoked_by: null,
    });

    const confirmed = await rest('POST', `/recurring/mandates/${id}/confirm`, { body: { otp: '314159' } });
    expect(confirmed.body).toEqual({ mandate_id: id, status: 'ACTIVE' });

    const first = await charge(id, 3_000, 'issue-1', { 'idempotency-key': `rest-chg-${id}` });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      charge_id: expect.stringMatching(/^chg_/),
      mandate_id: id,
      amount: 3_000,
      currency: 'LYD',
      reference: 'issue-1',
      settlement_type: 'rail',
    });
    // The same Idempotency-Key answers the same charge (whatever its status now), moving nothing more.
    const again = await charge(id, 3_000, 'issue-1', { 'idempotency-key': `rest-chg-${id}` });
    expect([again.status, again.body.charge_id]).toEqual([201, first.body.charge_id]);
    expectError(
      await charge(id, 2_000, 'issue-1', { 'idempotency-key': `rest-chg-${id}` }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    const completed = await eventually(async () => {
      const listed = await rest('GET', `/recurring/mandates/${id}/charges`, { headers: as() });
      return listed.body.charges[0]?.status === 'COMPLETED' ? listed.body.charges : undefined;
    }, 'the charge to complete');
    expect(completed.map((c: any) => c.charge_id)).toEqual([first.body.charge_id]);
    expect(await beta.balance(customer.iban)).toBe(17_000);

    expectError(await charge(id, 1, 'issue-1b'), 422, 'MANDATE_LIMIT_EXCEEDED');
    // A live mandate's clock never moves (test clocks move test objects only: test/test-mode charges a test mandate across periods).
    expectError(
      await rest('POST', `/recurring/mandates/${id}/test-clock/advance`, { headers: as(), body: { days: 31 } }),
      403,
      'FORBIDDEN',
    );
    expect(await beta.balance(customer.iban)).toBe(17_000);

    const cancelled = await rest('DELETE', `/recurring/mandates/${id}`, { headers: as() });
    expect([cancelled.status, cancelled.text]).toEqual([204, '']);
    expectError(await charge(id, 1, 'after-cancel'), 422, 'MANDATE_NOT_ACTIVE');
    expect((await rest('GET', `/recurring/mandates/${id}`, { headers: as() })).body).toMatchObject({
      status: 'CANCELLED',
      cancelled_at: expect.any(String),
      revoked_by: 'merchant',
    });
  });

  it('pages both lists with limit and cursor, newest first, every item once', async () => {
    const shop = await alpha.customer({ balance: 0 });
    // A test merchant, so the test clock may move its mandate; the test bank accepts 123456.
    const own = await t.seed.createMerchant({ name: 'Paged Shop', mode: 'test', settlement_iban: shop.iban });
    const customer = await alpha.customer({ balance: 50_000, otp: TEST_OTP });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push(await activeMandate(customer, own.apiKey));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/recurring/mandates?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await rest('GET', path, { headers: as(own.apiKey) });
      expect(page.status).toBe(200);
      expect(responseSchemaOf('GET', '/recurring/mandates').safeParse(page.body).error).toBeUndefined();
      expect(page.body.mandates.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.mandates.map((m: any) => m.mandate_id));
      expect(page.body.pagination.has_more).toBe(page.body.pagination.next_cursor !== null);
      cursor = page.body.pagination.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual([...ids].reverse());

    // Charges of one mandate: two periods through the test clock, one page each.
    const id = ids[0]!;
    const firstCharge = await rest('POST', `/recurring/mandates/${id}/charge`, {
      headers: as(own.apiKey),
      body: { amount: 1_000, reference: 'p1' },
    });
    expect(firstCharge.status).toBe(201);
    expect(
      (
        await rest('POST', `/recurring/mandates/${id}/test-clock/advance`, {
          headers: as(own.apiKey),
          body: { days: 31 },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await rest('POST', `/recurring/mandates/${id}/charge`, {
          headers: as(own.apiKey),
          body: { amount: 1_000, reference: 'p2' },
        })
      ).status,
    ).toBe(201);
    const one = await rest('GET', `/recurring/mandates/${id}/charges?limit=1`, { headers: as(own.apiKey) });
    expect(
      responseSchemaOf('GET', '/recurring/mandates/{mandate_id}/charges').safeParse(one.body).error,
    ).toBeUndefined();
    expect(one.body.charges.map((c: any) => c.reference)).toEqual(['p2']);
    expect(one.body.pagination).toEqual({ next_cursor: expect.any(String), has_more: true });
    const two = await rest(
      'GET',
      `/recurring/mandates/${id}/charges?limit=1&cursor=${encodeURIComponent(one.body.pagination.next_cursor)}`,
      { headers: as(own.apiKey) },
    );
    expect(two.body.charges.map((c: any) => c.reference)).toEqual(['p1']);
    expect(two.body.pagination).toEqual({ next_cursor: null, has_more: false });

    expectError(await rest('GET', '/recurring/mandates?limit=0', { headers: as(own.apiKey) }), 400, 'VALIDATION_ERROR');
    expectError(
      await rest('GET', '/recurring/mandates?limit=101', { headers: as(own.apiKey) }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await rest('GET', '/recurring/mandates?page=2', { headers: as(own.apiKey) }), 400, 'VALIDATION_ERROR');
    // A cursor not from the list is named as the client sent it (the subgraph says `after`).
    for (const path of [
      '/recurring/mandates?cursor=not-a-cursor',
      `/recurring/mandates/${id}/charges?cursor=not-a-cursor`,
    ]) {
      const refused = await rest('GET', path, { headers: as(own.apiKey) });
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.error.detail).toMatch(/^cursor: not a cursor of this list/);
    }
  });

  it('refuses what the REST layer can tell is wrong, naming the field, with the spec error body', async () => {
    const customer = await alpha.customer({ balance: 10_000 });
    for (const [patch, field] of [
      [{ color: 'red' }, 'color'],
      [{ interval: 'MONTHLY' }, 'interval'],
      [{ amount: '3000' }, 'amount'],
    ] as const) {
      const refused = await rest('POST', '/recurring/mandates', { headers: as(), body: body(customer, patch) });
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.error.detail).toContain(field);
    }
    const { customer_alias: _alias, ...noAlias } = body(customer);
    expectError(await rest('POST', '/recurring/mandates', { headers: as(), body: noAlias }), 400, 'VALIDATION_ERROR');

    const id = await activeMandate(customer);
    expectError(
      await rest('POST', `/recurring/mandates/${id}/charge`, {
        headers: as(),
        body: { amount: 100, reference: 'x', currency: 'LYD' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await rest('POST', `/recurring/mandates/${id}/confirm`, { body: {} }), 400, 'VALIDATION_ERROR');
    expectError(
      await rest('POST', `/recurring/mandates/${id}/test-clock/advance`, { headers: as(), body: { days: 'thirty' } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await rest('POST', `/recurring/mandates/${id}/revoke`, {
        headers: { 'x-service-bank-key': alpha.bankKey },
        body: { revoked_by: 'customer', reason: 'x' },
      }),
      400,
      'VALIDATION_ERROR',
    );

    // Keys of the wrong kind.
    expectError(await rest('GET', `/recurring/mandates/${id}`), 401, 'INVALID_API_KEY');
    // A merchant's key is a valid key of the wrong kind for the bank's revoke.
    expectError(
      await rest('POST', `/recurring/mandates/${id}/revoke`, { headers: as(), body: { revoked_by: 'customer' } }),
      403,
      'FORBIDDEN',
    );
    const live = await t.seed.createMerchant({ name: 'Live Shop', mode: 'live', settlement_iban: customer.iban });
    const liveMandate = await activeMandate(customer, live.apiKey);
    expectError(
      await rest('POST', `/recurring/mandates/${liveMandate}/test-clock/advance`, {
        headers: as(live.apiKey),
        body: { days: 31 },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(await rest('GET', `/recurring/mandates/mdt_doesnotexist`, { headers: as() }), 404, 'MANDATE_NOT_FOUND');
  });

  it('a merchant registered without settlement_iban gets one from an operator (PATCH), never from its own key, and can then create mandates', async () => {
    const customer = await alpha.customer();
    const shop = await alpha.customer({ balance: 0 });
    const bare = await t.seed.createMerchant({ name: 'Late Shop' });
    const admin = { 'x-service-admin-key': t.adminKey };
    const refused = await rest('POST', '/recurring/mandates', { headers: as(bare.apiKey), body: body(customer) });
    expectError(refused, 400, 'VALIDATION_ERROR');
    expect(refused.body.error.detail).toMatch(/^settlement_iban:/);

    expectError(
      await call(t.platform.restUrl, 'PATCH', `/merchants/${bare.merchantId}`, {
        headers: as(bare.apiKey),
        body: { settlement_iban: shop.iban },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await call(t.platform.restUrl, 'PATCH', `/merchants/${bare.merchantId}`, {
        headers: admin,
        body: { settlement_iban: 'LY00 not an iban' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await call(t.platform.restUrl, 'PATCH', `/merchants/${bare.merchantId}`, {
        headers: admin,
        body: { settlement_iban: null },
      }),
      400,
      'VALIDATION_ERROR',
    );
    const patched = await call(t.platform.restUrl, 'PATCH', `/merchants/${bare.merchantId}`, {
      headers: admin,
      body: { settlement_iban: shop.iban },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Late Shop', settlement_iban: shop.iban.replace(/\s/g, '') });
    // Its own key may still change the rest.
    expect(
      (
        await call(t.platform.restUrl, 'PATCH', `/merchants/${bare.merchantId}`, {
          headers: as(bare.apiKey),
          body: { name: 'Late Shop Ltd' },
        })
      ).status,
    ).toBe(200);

    const created = await rest('POST', '/recurring/mandates', { headers: as(bare.apiKey), body: body(customer) });
    expect(created.status).toBe(201);
    expect(created.body.merchant_id).toBe(bare.merchantId);
  });
});
