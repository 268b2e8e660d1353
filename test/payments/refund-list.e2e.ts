import { TEST_OTP } from '@gateway/bank-sandbox';
import { call, expectError } from '@gateway/rest-compat/testing';
import { gql } from '../support/graphql';
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

/**
 * The merchant-wide refunds list (issue 30: the dashboard's Refunds view): GET /refunds and
 * `refunds(first, after, filter)` list a merchant's refunds across its sessions, newest first, in its
 * world only, under RefundFilter (status, created range, reference, one metadata key=value), paged
 * by the shared keyset that refuses a cursor of another list.
 */
describe('the merchant-wide refunds list', () => {
  let t: TestPlatform;
  let base: string;
  let alpha: PaymentBank;
  /** Where sessions are paid. */
  let shop: Customer;
  /** The merchant's settlement account, with just enough for some refunds: a larger one FAILS (INSUFFICIENT_FUNDS). */
  let till: Customer;
  let merchant: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };
  let testShop: { merchantId: string; apiKey: string };

  const rest = (method: string, path: string, key = merchant.apiKey, body?: unknown) =>
    call(base, method, path, { headers: bearer(key), body });
  const q = (params: Record<string, string | number>) =>
    `?${Object.entries(params)
      .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`)
      .join('&')}`;
  const list = (params: Record<string, string | number> = {}, key = merchant.apiKey) =>
    rest('GET', `/refunds${Object.keys(params).length > 0 ? q(params) : ''}`, key);
  const ids = (answer: { status: number; body: Record<string, any> }) => {
    expect(answer.status).toBe(200);
    return (answer.body.refunds as Array<Record<string, string>>).map((row) => row.refund_id!);
  };
  const refund = async (sessionId: string, body: Record<string, unknown>, key = merchant.apiKey) => {
    const made = await rest('POST', `/payments/sessions/${sessionId}/refunds`, key, body);
    expect(made.status).toBe(201);
    return refundSettles(t, key, made.body.refund_id);
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    alpha = await startPaymentBank(t);
    shop = await alpha.customer({ balance: 0 });
    till = await alpha.customer({ balance: 1_500 });
    merchant = await t.seed.createMerchant({ name: 'Refund List Shop', settlement_iban: till.iban });
    other = await t.seed.createMerchant({ name: 'Other Shop', settlement_iban: shop.iban });
    testShop = await t.seed.createMerchant({ name: 'Test Shop', mode: 'test', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha?.sandbox.stop();
    await t?.stop();
  });

  it('lists the refunds of all its sessions newest first, filtered, paged, and never another merchant’s or world’s', async () => {
    const payer = await alpha.customer({ balance: 50_000 });
    const s1 = await paidSession(t, merchant.apiKey, shop, payer, 9_000);
    const s2 = await paidSession(t, merchant.apiKey, shop, payer, 6_000);
    const r1 = await refund(s1, { amount: 1_000, reference: 'ret-1', metadata: { rma: '11' } });
    // The till holds 500 now: this one FAILS at the merchant's bank.
    const r2 = await refund(s2, { amount: 2_000, reference: 'ret-2', metadata: { rma: '12' } });
    const r3 = await refund(s1, { amount: 500, metadata: { rma: '13' } });
    expect([r1.status, r2.status, r3.status]).toEqual(['COMPLETED', 'FAILED', 'COMPLETED']);

    // Another merchant's refund and a test merchant's (test world) are in neither list but their own.
    const foreign = await refund(await paidSession(t, other.apiKey, shop, payer, 2_000), { amount: 700 }, other.apiKey);
    const testSession = await rest('POST', '/payments/sessions', testShop.apiKey, {
      amount: 4_000,
      currency: 'LYD',
      destination: { type: 'alias', value: shop.alias },
    });
    const testId = testSession.body.session_id as string;
    const paidInTest = await call(base, 'POST', `/pay/${testId}/authorize`, {
      body: { payer: { type: 'alias', value: `success@${alpha.handle}` }, otp: TEST_OTP },
    });
    expect(paidInTest.status).toBe(200);
    const testRefund = await refund(testId, { amount: 1_000 }, testShop.apiKey);
    expect(testRefund.livemode).toBe(false);

    const all = await list();
    expect(ids(all)).toEqual([r3.refund_id, r2.refund_id, r1.refund_id]);
    expect(all.body.refunds[2]).toMatchObject({
      refund_id: r1.refund_id,
      session_id: s1,
      amount: 1_000,
      reference: 'ret-1',
      livemode: true,
      metadata: { rma: '11' },
    });
    expect(all.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(ids(await list({}, other.apiKey))).toEqual([foreign.refund_id]);
    expect(ids(await list({}, testShop.apiKey))).toEqual([testRefund.refund_id]);

    // Each filter narrows; all of them combine.
    expect(ids(await list({ status: 'COMPLETED' }))).toEqual([r3.refund_id, r1.refund_id]);
    expect(ids(await list({ status: 'FAILED' }))).toEqual([r2.refund_id]);
    expect(ids(await list({ status: 'PROCESSING' }))).toEqual([]);
    expect(ids(await list({ reference: 'ret-1' }))).toEqual([r1.refund_id]);
    expect(ids(await list({ 'metadata[rma]': '12' }))).toEqual([r2.refund_id]);
    expect(ids(await list({ created_from: r2.created_at }))).toEqual([r3.refund_id, r2.refund_id]);
    expect(ids(await list({ created_to: r2.created_at }))).toEqual([r1.refund_id]);
    expect(ids(await list({ created_from: r1.created_at, created_to: r3.created_at, status: 'COMPLETED' }))).toEqual([
      r1.refund_id,
    ]);
    expect(ids(await list({ created_from: '2999-01-01' }))).toEqual([]);

    // Pages of one: the cursor is the last id of a page; a filtered list pages the same way.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list({ limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page));
      cursor = page.body.pagination.next_cursor;
      expect(page.body.pagination.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([r3.refund_id, r2.refund_id, r1.refund_id]);
    const completedPage = await list({ limit: 1, status: 'COMPLETED', cursor: r3.refund_id });
    expect([ids(completedPage), completedPage.body.pagination.has_more]).toEqual([[r1.refund_id], false]);

    // The same over GraphQL.
    const REFUNDS = gql<
      { refunds: { edges: Array<{ node: { id: string; sessionId: string } }>; pageInfo: { hasNextPage: boolean } } },
      { first?: number; after?: string; filter?: Record<string, unknown> }
    >(
      `query($first: Int, $after: String, $filter: RefundFilter) { refunds(first: $first, after: $after, filter: $filter) { edges { node { id sessionId } } pageInfo { hasNextPage endCursor } } }`,
    );
    const viaGraph = await t.execute(
      REFUNDS,
      { filter: { status: 'COMPLETED', metadata: { key: 'rma', value: '13' } } },
      bearer(merchant.apiKey),
    );
    expect(viaGraph.refunds.edges.map((edge) => edge.node)).toEqual([{ id: r3.refund_id, sessionId: s1 }]);
    const firstPage = await t.execute(REFUNDS, { first: 2 }, bearer(merchant.apiKey));
    expect([firstPage.refunds.edges.map((edge) => edge.node.id), firstPage.refunds.pageInfo.hasNextPage]).toEqual([
      [r3.refund_id, r2.refund_id],
      true,
    ]);
    const asOther = await t.execute(REFUNDS, {}, bearer(other.apiKey));
    expect(asOther.refunds.edges.map((edge) => edge.node.id)).toEqual([foreign.refund_id]);
    const foreignCursor = await t.executeExpectingErrors(REFUNDS, { after: r1.refund_id }, bearer(other.apiKey));
    expect(foreignCursor.errors[0]?.extensions?.code).toBe('VALIDATION_ERROR');

    // The world is part of the list's scope, not only the merchant: a row of another world never shows.
    await t.platform.db.knex('payments.refunds').where({ id: r1.refund_id }).update({ livemode: false });
    expect(ids(await list())).toEqual([r3.refund_id, r2.refund_id]);
    await t.platform.db.knex('payments.refunds').where({ id: r1.refund_id }).update({ livemode: true });
  });

  it('refuses bad filters, cursors of another list and other credentials', async () => {
    const payer = await alpha.customer({ balance: 10_000 });
    const own = await refund(
      await paidSession(t, other.apiKey, shop, payer, 3_000),
      { amount: 100, reference: 'a' },
      other.apiKey,
    );
    const refused = async (params: Record<string, string | number>, detail: RegExp, key = merchant.apiKey) => {
      const answer = await list(params, key);
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error.detail).toMatch(detail);
    };
    for (const [params, detail] of [
      [{ status: 'PENDING' }, /^status: /],
      [{ created_from: 'yesterday' }, /^created_from: /],
      [{ created_to: '2026-02-30' }, /^created_to: /],
      [{ created_from: '2026-12-02', created_to: '2026-12-01' }, /^created_from: /],
      [{ 'metadata[a]': '1', 'metadata[b]': '2' }, /^metadata: /],
      [{ 'metadata[a]': '' }, /^metadata: /],
      [{ limit: 0 }, /^limit: /],
      [{ amount_min: 5 }, /^amount_min: unknown/],
      // Another merchant's refund is no cursor of this merchant's list.
      [{ cursor: own.refund_id }, /^cursor: /],
    ] as const)
      await refused(params, detail);
    // Its own refund, outside the list's fixed filters (reference), is no cursor of that filtered list either.
    await refused({ reference: 'b', cursor: own.refund_id }, /^cursor: /, other.apiKey);
    expect(ids(await list({ reference: 'a', cursor: own.refund_id }, other.apiKey))).toEqual([]);
    expectError(await call(base, 'GET', '/refunds'), 401, 'INVALID_API_KEY');
    // An operator reads one refund by id, but the list is a merchant key's own (as GET /recurring/mandates).
    expectError(await call(base, 'GET', '/refunds', { headers: bearer(t.adminKey) }), 401, 'INVALID_API_KEY');
  });
});
