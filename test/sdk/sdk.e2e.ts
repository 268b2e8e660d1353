import {
  GatewayApiError,
  GatewayClient,
  WebhookVerificationError,
  webhooks,
  type ListItem,
  type WebhookEvent,
} from '@gateway/sdk';
import { FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

/**
 * The published SDK (packages/sdk) against a running platform, as a merchant's code uses it:
 * sessions created, listed page by page, read, refused with a typed error, an idempotent retry
 * after a lost answer that creates nothing twice, and a real delivered webhook verified.
 */
describe('@gateway/sdk against the platform', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let receiver: TestWebhookReceiver;
  let payee: Customer;
  let merchant: { merchantId: string; apiKey: string; webhookSecret: string };
  let gateway: GatewayClient;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    bank = await startPaymentBank(t);
    receiver = await startTestReceiver();
    payee = await bank.customer({ balance: 0 });
    // Refunds are paid from the settlement account: the payee's, which the paid session credits.
    merchant = await t.seed.createMerchant({ webhook_url: receiver.url, settlement_iban: payee.iban });
    gateway = new GatewayClient({ baseUrl: t.platform.restUrl, apiKey: merchant.apiKey });
  });
  afterAll(async () => {
    await receiver?.stop();
    await bank?.sandbox.stop();
    await t?.stop();
  });

  const newSession = (reference: string) => ({
    amount: 1500,
    currency: 'LYD',
    destination: { type: 'alias', value: payee.alias },
    reference,
  });

  it('creates sessions, lists them all page by page, and reads one', async () => {
    const created = [];
    for (const n of [1, 2, 3, 4, 5])
      created.push(await gateway.post('/payments/sessions', { body: newSession(`order-${n}`) }));
    expect(created.map((session) => session.status)).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'PENDING']);
    expect(created[0]!.session_id).toMatch(/^ops_/);
    expect(created[0]!.checkout_url).toContain(created[0]!.session_id);

    const listed: Array<ListItem<'/payments/sessions'>> = [];
    for await (const session of gateway.paginate('/payments/sessions', { params: { query: { limit: 2 } } }))
      listed.push(session);
    expect(listed.map((session) => session.session_id).sort()).toEqual(created.map((s) => s.session_id).sort());
    expect(new Set(listed.map((session) => session.session_id)).size).toBe(5);

    const read = await gateway.get('/payments/sessions/{session_id}', {
      params: { path: { session_id: created[2]!.session_id } },
    });
    expect(read).toMatchObject({ session_id: created[2]!.session_id, reference: 'order-3', amount: 1500 });
  });

  it('answers an unknown session with a typed GatewayApiError carrying the spec code and request id', async () => {
    const error = await gateway
      .get('/payments/sessions/{session_id}', { params: { path: { session_id: 'ops_doesnotexist' } } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayApiError);
    const refusal = error as GatewayApiError;
    expect(refusal).toMatchObject({ status: 404, code: 'SESSION_NOT_FOUND' });
    expect(refusal.requestId).toMatch(/^req_/);
    expect(refusal.message).toContain('SESSION_NOT_FOUND');

    const invalid = (await gateway
      .post('/payments/sessions', { body: { ...newSession('bad'), amount: -5 } })
      .catch((caught: unknown) => caught)) as GatewayApiError;
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(invalid.detail).toContain('amount');
  });

  it('retries a creation whose answer was lost with the same Idempotency-Key, and the platform creates it once', async () => {
    const keys: string[] = [];
    let lost = 0;
    const flaky = new GatewayClient({
      baseUrl: t.platform.restUrl,
      apiKey: merchant.apiKey,
      retry: { baseDelayMs: 10 },
      // The request reaches the platform and is done there; its answer is lost on the way back, once.
      fetch: async (request) => {
        keys.push(request.headers.get('idempotency-key') ?? '');
        const answer = await fetch(request);
        if (lost++ === 0) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
        return answer;
      },
    });
    const countSessions = async () => {
      let count = 0;
      for await (const _ of gateway.paginate('/payments/sessions', { params: { query: { limit: 100 } } })) count++;
      return count;
    };
    const before = await countSessions();
    const session = await flaky.post('/payments/sessions', { body: newSession('order-retried') });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^idk_/);
    expect(keys[1]).toBe(keys[0]);
    expect(await countSessions()).toBe(before + 1);
    expect(
      await gateway.get('/payments/sessions/{session_id}', { params: { path: { session_id: session.session_id } } }),
    ).toMatchObject({ reference: 'order-retried' });
  });

  it('verifies the payment.completed webhook the platform delivers, and refuses it altered', async () => {
    const payer = await bank.customer();
    const session = await gateway.post('/payments/sessions', { body: newSession('order-webhook') });
    const paid = await t.rest('POST', `/pay/${session.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(paid.status).toBe(200);
    const delivery = await receiver.waitFor(
      (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === session.session_id,
      'payment.completed',
    );

    const event: WebhookEvent = webhooks.verify(delivery.body, delivery.headers, merchant.webhookSecret);
    expect(event).toMatchObject({
      id: delivery.headers['webhook-id'],
      event: 'payment.completed',
      livemode: true,
      data: { session_id: session.session_id, reference: 'order-webhook', status: 'COMPLETED', amount: 1500 },
    });
    // Typed from the document's webhooks section: payment.completed's data names the payee's bank.
    if (event.event !== 'payment.completed') throw new Error(`unexpected ${event.event}`);
    expect(event.data.creditor_bank).toBe(bank.handle);
    expect(event.data.settlement_type).toBe('internal');

    const altered = delivery.body.replace('"amount":1500', '"amount":150000');
    expect(altered).not.toBe(delivery.body);
    expect(() => webhooks.verify(altered, delivery.headers, merchant.webhookSecret)).toThrow(WebhookVerificationError);
    const otherSecret = (await t.seed.createMerchant()).webhookSecret;
    expect(() => webhooks.verify(delivery.body, delivery.headers, otherSecret)).toThrow(WebhookVerificationError);
    expect(() =>
      webhooks.verify(delivery.body, delivery.headers, merchant.webhookSecret, {
        now: new Date(Date.now() + 6 * 60_000),
      }),
    ).toThrow('tolerance');

    // A refund through the SDK (an idempotent POST), and its refund.completed verified and typed.
    const refund = await gateway.post('/payments/sessions/{session_id}/refunds', {
      params: { path: { session_id: session.session_id } },
      body: { amount: 500, reference: 'rma-1' },
    });
    const refunded = await receiver.waitFor(
      (w) => w.envelope.event === 'refund.completed' && w.envelope.data.refund_id === refund.refund_id,
      'refund.completed',
    );
    const refundEvent = webhooks.verify(refunded.body, refunded.headers, merchant.webhookSecret);
    if (refundEvent.event !== 'refund.completed') throw new Error(`unexpected ${refundEvent.event}`);
    expect(refundEvent.data).toMatchObject({ session_id: session.session_id, amount: 500, reference: 'rma-1' });
  });

  it('received only events the OpenAPI document describes, each matching its documented schema', () => {
    const kinds = new Set(receiver.received.map((w) => w.envelope.event));
    expect([...kinds]).toEqual(
      expect.arrayContaining(['payment.initiated', 'payment.processing', 'payment.completed', 'refund.completed']),
    );
    expect(receiver.received.map((w) => w.undocumented).filter(Boolean)).toEqual([]);
  });
  it('streams a CSV report, and refuses a bad range with a typed error', async () => {
    const day = 24 * 3600 * 1000;
    const range = { from: new Date(Date.now() - day).toISOString(), to: new Date(Date.now() + day).toISOString() };
    const stream = await gateway.report('/reports/sessions.csv', range);
    const csv = await new Response(stream).text();
    const [header, ...rows] = csv.trimEnd().split('\r\n');
    expect(header).toContain('session_id');
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.some((row) => row.includes('order-3'))).toBe(true);

    const refused = await gateway
      .report('/reports/sessions.csv', { from: range.to, to: range.from })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(GatewayApiError);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });
});
