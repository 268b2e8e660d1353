import { call, expectError } from '@gateway/rest-compat/testing';
import { gql } from '../support/graphql';
import {
  bearer,
  FAST_ENGINE,
  paidSession,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The refund API's boundaries (API-CONTRACT "Refunds and ending a session early"): who may refund
 * what, the contract's refusal codes with nothing moved, Idempotency-Key as for sessions, and the
 * GraphQL surface (refundPaymentSession, PaymentSession.refunds and amountRefunded, refund).
 */
describe('the refund API', () => {
  let t: TestPlatform;
  let base: string;
  let alpha: PaymentBank;
  let shop: Customer;
  let merchant: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };

  const refund = (
    sessionId: string,
    body: Record<string, unknown> = {},
    apiKey = merchant.apiKey,
    headers: Record<string, string> = {},
  ) =>
    call(base, 'POST', `/payments/sessions/${sessionId}/refunds`, { headers: { ...bearer(apiKey), ...headers }, body });
  const refundRows = (sessionId: string) => t.platform.db.knex('payments.refunds').where({ session_id: sessionId });
  const createSession = async (apiKey: string) =>
    (
      await call(base, 'POST', '/payments/sessions', {
        headers: bearer(apiKey),
        body: { amount: 5_000, currency: 'LYD', destination: { type: 'alias', value: shop.alias } },
      })
    ).body.session_id as string;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    alpha = await startPaymentBank(t);
    shop = await alpha.customer({ balance: 500_000 });
    merchant = await t.seed.createMerchant({ name: 'API Shop', settlement_iban: shop.iban });
    other = await t.seed.createMerchant({ name: 'Other Shop', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await t.stop();
  });

  it("refuses with the contract's codes, and nothing moves", async () => {
    const payer = await alpha.customer({ balance: 50_000 });
    const paid = await paidSession(t, merchant.apiKey, shop, payer, 5_000);
    const pending = await createSession(merchant.apiKey);
    const ended = await createSession(merchant.apiKey);
    expect(
      (await call(base, 'POST', `/payments/sessions/${ended}/expire`, { headers: bearer(merchant.apiKey) })).status,
    ).toBe(200);

    // Another merchant's session is as unknown as an unknown one.
    expectError(await refund(paid, {}, other.apiKey), 404, 'SESSION_NOT_FOUND');
    expectError(await refund('ops_000000000000000000000000'), 404, 'SESSION_NOT_FOUND');
    expectError(
      await call(base, 'GET', `/payments/sessions/${paid}/refunds`, { headers: bearer(other.apiKey) }),
      404,
      'SESSION_NOT_FOUND',
    );
    for (const id of [pending, ended]) expectError(await refund(id), 422, 'REFUND_NOT_ALLOWED');
    expectError(await refund(paid, { amount: 5_001 }), 422, 'REFUND_AMOUNT_EXCEEDED');
    for (const body of [
      { amount: 0 },
      { amount: 12.5 },
      { reason: '' },
      { reference: 'x'.repeat(129) },
      { iban: shop.iban },
    ])
      expectError(await refund(paid, body), 400, 'VALIDATION_ERROR');
    expectError(
      await refund(paid, {}, merchant.apiKey, { 'idempotency-key': 'x'.repeat(256) }),
      400,
      'VALIDATION_ERROR',
    );

    // A merchant without settlement_iban has nothing to pay a refund from.
    const noAccount = await t.seed.createMerchant({ name: 'No Account Shop' });
    const theirs = await paidSession(t, noAccount.apiKey, shop, payer, 2_000);
    const refused = await refund(theirs, {}, noAccount.apiKey);
    expectError(refused, 400, 'VALIDATION_ERROR');
    expect(refused.body.error.detail).toContain('settlement_iban');

    for (const id of [paid, pending, ended, theirs]) expect(await refundRows(id)).toEqual([]);
    expect(await alpha.balance(payer.iban)).toBe(50_000 - 5_000 - 2_000);
    expect(
      (await call(base, 'GET', `/payments/sessions/${paid}`, { headers: bearer(merchant.apiKey) })).body
        .amount_refunded,
    ).toBe(0);
    expectError(
      await call(base, 'GET', '/refunds/rfd_000000000000000000000000', { headers: bearer(merchant.apiKey) }),
      404,
      'REFUND_NOT_FOUND',
    );
  });

  it('answers the same refund to the same Idempotency-Key, refuses another request with it, and hides a refund from another merchant', async () => {
    const payer = await alpha.customer({ balance: 50_000 });
    const id = await paidSession(t, merchant.apiKey, shop, payer, 6_000);
    const key = { 'idempotency-key': `rfd-${Date.now()}` };
    const first = await refund(id, { amount: 2_000, reason: 'Late delivery' }, merchant.apiKey, key);
    expect(first.status).toBe(201);
    const again = await refund(id, { amount: 2_000, reason: 'Late delivery' }, merchant.apiKey, key);
    expect([again.status, again.body.refund_id]).toEqual([201, first.body.refund_id]);
    expectError(await refund(id, { amount: 3_000 }, merchant.apiKey, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    // One refund, one debit and one credit.
    expect(await refundRows(id)).toHaveLength(1);
    expect(await alpha.balance(payer.iban)).toBe(44_000 + 2_000);
    expect((await alpha.movements(first.body.refund_id)).length).toBe(2);

    // A refused request does not keep its key: corrected, it goes through.
    const retry = { 'idempotency-key': `rfd-retry-${Date.now()}` };
    expectError(await refund(id, { amount: 9_000 }, merchant.apiKey, retry), 422, 'REFUND_AMOUNT_EXCEEDED');
    expect((await refund(id, { amount: 4_000 }, merchant.apiKey, retry)).body).toMatchObject({ amount: 4_000 });

    expectError(
      await call(base, 'GET', `/refunds/${first.body.refund_id}`, { headers: bearer(other.apiKey) }),
      404,
      'REFUND_NOT_FOUND',
    );
    expect(
      (await call(base, 'GET', `/refunds/${first.body.refund_id}`, { headers: { 'x-service-admin-key': t.adminKey } }))
        .body,
    ).toMatchObject({ refund_id: first.body.refund_id, status: 'COMPLETED' });
  });

  it('GraphQL: refundPaymentSession, PaymentSession.refunds and amountRefunded, refund(id); the payer cannot list refunds', async () => {
    const payer = await alpha.customer({ balance: 50_000 });
    const created = await call(base, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 8_000, currency: 'LYD', destination: { type: 'alias', value: shop.alias } },
    });
    const id = created.body.session_id as string;
    const paid = await call(base, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(paid.body.status).toBe('COMPLETED');
    const auth = bearer(merchant.apiKey);

    const REFUND = gql<
      {
        refundPaymentSession: {
          id: string;
          sessionId: string;
          status: string;
          amount: number;
          reason: string | null;
          settlementType: string;
          payerBank: { handle: string };
        };
      },
      { id: string; input: Record<string, unknown> }
    >(
      `mutation($id: ID!, $input: RefundPaymentSessionInput) { refundPaymentSession(id: $id, input: $input) { id sessionId status amount reason settlementType payerBank { handle } } }`,
    );
    const made = (await t.execute(REFUND, { id, input: { amount: 2_500, reason: 'Damaged' } }, auth))
      .refundPaymentSession;
    expect(made).toEqual({
      id: expect.stringMatching(/^rfd_/),
      sessionId: id,
      status: 'COMPLETED',
      amount: 2_500,
      reason: 'Damaged',
      settlementType: 'internal',
      payerBank: { handle: alpha.handle },
    });

    const READ = gql<
      {
        paymentSession: { amountRefunded: number; refunds: { edges: Array<{ cursor: string; node: { id: string } }> } };
        refund: { id: string; status: string; completedAt: string | null };
      },
      { id: string; refundId: string }
    >(
      `query($id: ID!, $refundId: ID!) { paymentSession(id: $id) { amountRefunded refunds { edges { cursor node { id } } } } refund(id: $refundId) { id status completedAt } }`,
    );
    const read = await t.execute(READ, { id, refundId: made.id }, auth);
    expect(read.paymentSession).toEqual({
      amountRefunded: 2_500,
      refunds: { edges: [{ cursor: made.id, node: { id: made.id } }] },
    });
    expect(read.refund).toEqual({ id: made.id, status: 'COMPLETED', completedAt: expect.any(String) });

    // The payer's token opens its session, not the merchant's refunds (their reasons are the merchant's own words).
    const LIST = gql<{ paymentSession: { refunds: { edges: unknown[] } } }, { id: string }>(
      `query($id: ID!) { paymentSession(id: $id) { refunds { edges { node { id reason } } } } }`,
    );
    const asPayer = await t.executeExpectingErrors(LIST, { id }, { 'x-session-token': paid.body.session_token });
    expect(asPayer.errors[0]?.extensions?.code).toBe('FORBIDDEN');
    const refusal = await t.executeExpectingErrors(REFUND, { id, input: { amount: 6_000 } }, auth);
    expect(refusal.errors[0]?.extensions?.code).toBe('REFUND_AMOUNT_EXCEEDED');
  });
});
