import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import { openBankingSeeds, ALL_OB_SCOPES, type Grant, type OpenBankingSeeds } from '../support/open-banking';
import { FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

/** POST/GET /ob/payment-orders end to end: rest-compat -> router (access token, per-TPP limit) -> open-banking. */
describe('Open Banking payment orders: creation and reads', () => {
  let t: TestPlatform;
  let base: string;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let alice: Customer;
  let bob: Customer;
  let tpp: { tppId: string; tppAccessToken: string };
  let grant: Grant;

  const post = (body: Record<string, unknown>, headers: Record<string, string> = grant.headers()) =>
    call(base, 'POST', '/ob/payment-orders', { headers, body });
  const order = (amount: number, extra: Record<string, unknown> = {}) => ({
    source_account_id: grant.accountIds[0],
    destination: { type: 'iban', value: bob.iban },
    amount,
    currency: 'LYD',
    description: 'Rent share',
    ...extra,
  });

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    alice = await bank.customer({ balance: 1_000_000 });
    bob = await bank.customer({ balance: 0 });
    tpp = await t.seed.registerTpp({ name: 'Pay App' });
    grant = await ob.grant(
      tpp.tppAccessToken,
      bank.handle,
      [{ iban: alice.iban, bankHandle: bank.handle }],
      ALL_OB_SCOPES,
    );
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('above the sca_exemption_limit: 202 PENDING_SCA with sca_url, and no money moves', async () => {
    const before = await bank.balance(alice.iban);
    const answer = await post(order(150_000));
    expect(answer.status).toBe(202);
    expect(responseSchemaOf('POST', '/ob/payment-orders').safeParse(answer.body).error).toBeUndefined();
    const id = answer.body.payment_order_id as string;
    expect(id).toMatch(/^po_/);
    expect(answer.body).toMatchObject({
      status: 'PENDING_SCA',
      amount: 150_000,
      currency: 'LYD',
      source_account_id: grant.accountIds[0],
      creditor_bank: bank.handle,
    });
    expect(answer.body.sca_url).toMatch(new RegExp(`^https?://[^/]+/ob/sca/${id}$`));
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await bank.balance(alice.iban)).toBe(before);
    expect(await bank.movements(id)).toEqual([]);
    const read = await call(base, 'GET', `/ob/payment-orders/${id}`, { headers: grant.headers() });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ payment_order_id: id, status: 'PENDING_SCA' });
  });

  it('at or below the limit: 201, executing at once; the same Idempotency-Key and body answer the same order, another body 422', async () => {
    const headers = { ...grant.headers(), 'idempotency-key': 'po-key-1' };
    const first = await post(order(2_500), headers);
    expect(first.status).toBe(201);
    expect(['PROCESSING', 'COMPLETED']).toContain(first.body.status);
    expect(first.body.sca_url).toBeNull();
    const again = await post(order(2_500), headers);
    expect(again.status).toBe(201);
    expect(again.body.payment_order_id).toBe(first.body.payment_order_id);
    expectError(await post(order(2_600), headers), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses with the spec codes: scope, account, IBAN, unknown bank, limits', async () => {
    const readOnly = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    expectError(
      await post({ ...order(100), source_account_id: readOnly.accountIds[0] }, readOnly.headers()),
      403,
      'SCOPE_INSUFFICIENT',
    );
    expectError(await post(order(100, { source_account_id: readOnly.accountIds[0] })), 404, 'ACCOUNT_NOT_FOUND');
    expectError(
      await post(order(100, { destination: { type: 'iban', value: 'LY00 0000 0000' } })),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await post(order(100, { destination: { type: 'alias', value: 'bob' } })), 400, 'VALIDATION_ERROR');
    expectError(
      await post(order(100, { destination: { type: 'iban', value: lyIban('099', 12345) } })),
      422,
      'BANK_NOT_PARTICIPATING',
    );
    expectError(await post(order(0)), 400, 'VALIDATION_ERROR');
    expectError(await post(order(100, { currency: 'GBP' })), 400, 'VALIDATION_ERROR');
    expectError(await post(order(Number.MAX_SAFE_INTEGER)), 422, 'AMOUNT_TOO_HIGH');
    expectError(await post(order(100), { authorization: `Bearer ${tpp.tppAccessToken}` }), 401, 'UNAUTHORIZED');
  });

  it("another consent's token, even the same TPP's, cannot read the order: 404 like an unknown id", async () => {
    const created = await post(order(150_001));
    const other = await ob.grant(
      tpp.tppAccessToken,
      bank.handle,
      [{ iban: alice.iban, bankHandle: bank.handle }],
      ALL_OB_SCOPES,
    );
    // The creation budget is the TPP's (100 a minute), not the consent's: the other consent spends the same one.
    const left = Number(created.headers.get('x-ratelimit-remaining'));
    const byOther = await post(order(150_002, { source_account_id: other.accountIds[0] }), other.headers());
    expect(byOther.status).toBe(202);
    expect(Number(byOther.headers.get('x-ratelimit-remaining'))).toBe(left - 1);
    expectError(
      await call(base, 'GET', `/ob/payment-orders/${created.body.payment_order_id}`, { headers: other.headers() }),
      404,
      'PAYMENT_ORDER_NOT_FOUND',
    );
    expectError(
      await call(base, 'GET', '/ob/payment-orders/po_unknown', { headers: grant.headers() }),
      404,
      'PAYMENT_ORDER_NOT_FOUND',
    );
  });
});
