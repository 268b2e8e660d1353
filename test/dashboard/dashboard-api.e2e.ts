import { bearer, eventually, startPaymentBank, type PaymentBank } from '../support/payments';
import { gql } from '../support/graphql';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

const CURRENT_MERCHANT = gql<{
  currentMerchant: { id: string; name: string; mode: string; webhookUrl: string | null };
}>(`{ currentMerchant { id name mode webhookUrl } }`);

const HISTORY = gql<
  {
    paymentSession: {
      status: string;
      createdAt: string;
      completedAt: string | null;
      statusHistory: Array<{ status: string; at: string; event: string; failureCode: string | null }>;
    };
  },
  { id: string }
>(
  `query($id: ID!) { paymentSession(id: $id) { status createdAt completedAt statusHistory { status at event failureCode } } }`,
);

const DELIVERIES = gql<
  {
    webhookDeliveries: {
      edges: Array<{ node: { id: string; event: string; aggregateId: string } }>;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  },
  { aggregateId?: string | null; first?: number; after?: string | null }
>(`query($aggregateId: ID, $first: Int! = 20, $after: ID) {
  webhookDeliveries(aggregateId: $aggregateId, first: $first, after: $after) { edges { node { id event aggregateId } } pageInfo { hasNextPage endCursor } }
}`);

/**
 * What the merchant dashboard needs of the GraphQL API beyond the REST surface: whose key it holds
 * (currentMerchant) and one session's webhook deliveries (webhookDeliveries(aggregateId), each
 * delivery naming its aggregate), both within the caller's own data only.
 */
describe('GraphQL fields for the merchant dashboard', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let receiver: TestWebhookReceiver;

  beforeAll(async () => {
    t = await startTestPlatform();
    bank = await startPaymentBank(t);
    receiver = await startTestReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
    await bank.sandbox.stop();
    await t.stop();
  });

  it('currentMerchant answers the calling merchant; a wrong key or none is INVALID_API_KEY, an operator key FORBIDDEN', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Who Am I', mode: 'test', webhook_url: receiver.url });
    const { currentMerchant } = await t.execute(CURRENT_MERCHANT, {}, bearer(merchant.apiKey));
    expect(currentMerchant).toEqual({
      id: merchant.merchantId,
      name: 'Who Am I',
      mode: 'test',
      webhookUrl: receiver.url,
    });
    const other = await t.seed.createMerchant({ name: 'Someone Else', mode: 'live' });
    expect((await t.execute(CURRENT_MERCHANT, {}, bearer(other.apiKey))).currentMerchant).toMatchObject({
      id: other.merchantId,
      mode: 'live',
    });

    const wrong = await t.executeExpectingErrors(CURRENT_MERCHANT, {}, bearer('mk_test_notAKeyAtAll'));
    expect(wrong.errors[0]!.extensions?.code).toBe('INVALID_API_KEY');
    const admin = await t.executeExpectingErrors(CURRENT_MERCHANT, {}, { 'x-service-admin-key': t.adminKey });
    expect(admin.errors[0]!.extensions?.code).toBe('FORBIDDEN');
    const anonymous = await t.executeExpectingErrors(CURRENT_MERCHANT, {});
    expect(anonymous.errors[0]!.extensions?.code).toBe('INVALID_API_KEY');
  });

  it('PaymentSession.statusHistory gives every move with its time and event, oldest first, to whoever may see the session', async () => {
    const merchant = await t.seed.createMerchant();
    const payee = await bank.customer({ balance: 0 });
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 2_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    const id = created.body.session_id as string;
    const pending = (await t.execute(HISTORY, { id }, bearer(merchant.apiKey))).paymentSession;
    expect(pending.statusHistory).toEqual([
      { status: 'PENDING', at: pending.createdAt, event: 'payment.initiated', failureCode: null },
    ]);

    // Three wrong OTPs fail it: the failed move carries its code.
    const payer = await bank.customer();
    for (let n = 0; n < 3; n += 1)
      await t.rest('POST', `/pay/${id}/authorize`, {
        body: { payer: { type: 'alias', value: payer.alias }, otp: '000000' },
      });
    const failed = (await t.execute(HISTORY, { id }, bearer(merchant.apiKey))).paymentSession;
    expect(failed.status).toBe('FAILED');
    expect(failed.statusHistory.map(({ status, event, failureCode }) => [status, event, failureCode])).toEqual([
      ['PENDING', 'payment.initiated', null],
      ['FAILED', 'payment.failed', 'OTP_INVALID'],
    ]);

    const paidId = (
      await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 2_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body.session_id as string;
    const paid = await t.rest('POST', `/pay/${paidId}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect({ status: paid.status, body: paid.body }).toMatchObject({ status: 200, body: { status: 'COMPLETED' } });
    const completed = (await t.execute(HISTORY, { id: paidId }, bearer(merchant.apiKey))).paymentSession;
    expect(completed.statusHistory.map((change) => change.status)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(completed.statusHistory.at(-1)!.at).toBe(completed.completedAt);
    const times = completed.statusHistory.map((change) => Date.parse(change.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    // Another merchant does not reach the session, so not its history either.
    const stranger = await t.seed.createMerchant();
    const refused = await t.executeExpectingErrors(HISTORY, { id: paidId }, bearer(stranger.apiKey));
    expect(refused.errors[0]!.extensions?.code).toBe('SESSION_NOT_FOUND');
  });

  it("webhookDeliveries(aggregateId) keeps one session's deliveries, pages within them, and never reaches another merchant's", async () => {
    const merchant = await t.seed.createMerchant({ webhook_url: receiver.url });
    const stranger = await t.seed.createMerchant({ webhook_url: receiver.url });
    const payee = await bank.customer({ balance: 0 });
    const session = async (apiKey: string) => {
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(apiKey),
        body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      });
      expect(created.status).toBe(201);
      const payer = await bank.customer();
      const paid = await t.rest('POST', `/pay/${created.body.session_id}/authorize`, {
        body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      });
      expect({ status: paid.status, body: paid.body }).toMatchObject({ status: 200 });
      return created.body.session_id as string;
    };
    const [first, second, theirs] = [
      await session(merchant.apiKey),
      await session(merchant.apiKey),
      await session(stranger.apiKey),
    ];
    const kinds = ['payment.completed', 'payment.processing', 'payment.initiated'];
    const deliveriesOf = (apiKey: string, aggregateId: string | null, first = 20, after: string | null = null) =>
      t.execute(DELIVERIES, { aggregateId, first, after }, bearer(apiKey)).then((data) => data.webhookDeliveries);
    await eventually(
      async () => ((await deliveriesOf(merchant.apiKey, null)).edges.length === 6 ? true : undefined),
      "both sessions' deliveries",
    );

    const ofFirst = await deliveriesOf(merchant.apiKey, first);
    expect(ofFirst.edges.map((edge) => [edge.node.aggregateId, edge.node.event])).toEqual(
      kinds.map((kind) => [first, kind]),
    );
    expect((await deliveriesOf(merchant.apiKey, second)).edges.map((edge) => edge.node.aggregateId)).toEqual([
      second,
      second,
      second,
    ]);

    // Pages stay within the session: two, then the third, then nothing more.
    const page1 = await deliveriesOf(merchant.apiKey, first, 2);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = await deliveriesOf(merchant.apiKey, first, 2, page1.pageInfo.endCursor);
    expect([...page1.edges, ...page2.edges].map((edge) => edge.node.event)).toEqual(kinds);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    // A cursor of another session is refused rather than read across the filter.
    const crossed = await t.executeExpectingErrors(
      DELIVERIES,
      { aggregateId: second, first: 2, after: page1.pageInfo.endCursor },
      bearer(merchant.apiKey),
    );
    expect(crossed.errors[0]!.extensions?.code).toBe('VALIDATION_ERROR');

    // Another merchant's session: no deliveries, however its id is known.
    await eventually(
      async () => ((await deliveriesOf(stranger.apiKey, theirs)).edges.length === 3 ? true : undefined),
      "the stranger's deliveries",
    );
    expect((await deliveriesOf(merchant.apiKey, theirs)).edges).toEqual([]);
  });
});
