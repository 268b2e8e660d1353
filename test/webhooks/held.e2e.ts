import { admin } from '../settlement/support';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  sessionReaches,
  startPaymentBank,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  serviceSignature,
  startTestReceiver,
  type ReceivedWebhook,
  type TestWebhookReceiver,
} from '../support/webhook-receiver';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sequenceOf = (w: ReceivedWebhook) => (w.envelope as { sequence?: number }).sequence ?? 0;

/**
 * Issue 46, "Suspension holds webhooks". The review's probe: 13 deliveries arrived while the
 * merchant was SUSPENDED. Now the events of a suspended merchant's work in flight (a cross-bank
 * payment that completes, sessions that expire) wait HELD, unattempted, and after resume each goes
 * out once, in order per session.
 */
describe("a suspended merchant's webhooks are held until it is resumed", () => {
  let t: TestPlatform;
  let payerBank: PaymentBank;
  let payeeBank: PaymentBank;
  let receiver: TestWebhookReceiver;

  beforeAll(async () => {
    t = await startTestPlatform({
      // One slow debit call, not a timeout and a replay: the suspension lands while it is at the core.
      paymentsEngine: { ...FAST_ENGINE, coreTimeoutMs: 5_000, coreBudgetMs: 6_000 },
      // Open sessions expire while the merchant is suspended.
      paymentsSessionTtlSeconds: 3,
    });
    payerBank = await startPaymentBank(t);
    // The credit's confirmation comes well after the suspension.
    payeeBank = await startPaymentBank(t, { confirmDelayMs: { min: 1_500, max: 1_500 } });
    receiver = await startTestReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
    for (const bank of [payerBank, payeeBank]) await bank?.sandbox.stop();
    await t.stop();
  });

  it('receives nothing while SUSPENDED, then each held event once, in order per session', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Held Shop', webhook_url: receiver.url });
    const [payer, payee] = [await payerBank.customer({ balance: 100_000 }), await payeeBank.customer({ balance: 0 })];
    const session = async () => {
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 2_500, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      });
      expect(created.status).toBe(201);
      return created.body.session_id as string;
    };
    const expiring = [await session(), await session()];
    const paying = await session();
    payerBank.sandbox.injectFaults({ latencyMs: 2_500, operations: ['debit'], times: 1 });
    const authorized = t.rest('POST', `/pay/${paying}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    await sessionReaches(t, merchant.apiKey, paying, 'PROCESSING');
    const suspended = await t.rest('POST', `/merchants/${merchant.merchantId}/suspend`, { headers: admin(t) });
    expect(suspended.body.status).toBe('SUSPENDED');
    const suspendedAt = new Date().toISOString();

    // Its work in flight goes on: the payment completes and the open sessions expire, meanwhile.
    expect((await authorized).status).toBe(200);
    const statusOf = async (id: string) =>
      (await t.rest('GET', `/payments/sessions/${id}`, { headers: admin(t) })).body.status as string;
    await eventually(async () => ((await statusOf(paying)) === 'COMPLETED' ? true : undefined), 'the payment', 20_000);
    for (const id of expiring)
      await eventually(async () => ((await statusOf(id)) === 'EXPIRED' ? true : undefined), `${id} to expire`);

    // Their events are logged and held, none attempted; nothing created after the suspension arrived.
    const rows = () =>
      t.platform.db
        .knex('payments.webhook_deliveries')
        .where({ audience_id: merchant.merchantId })
        .select('event_kind', 'aggregate_id', 'sequence', 'status', 'attempts', 'next_attempt_at');
    const held = await eventually(async () => {
      const all = await rows();
      const waiting = all.filter((row) => row.status === 'HELD');
      // payment.processing (settlement pending) and payment.completed of the payment, payment.expired of each session.
      return waiting.length >= 4 ? waiting : undefined;
    }, 'the held deliveries');
    expect(held.every((row) => row.attempts === 0 && row.next_attempt_at === null)).toBe(true);
    expect(
      held
        .filter((row) => row.event_kind === 'payment.expired')
        .map((row) => row.aggregate_id)
        .sort(),
    ).toEqual([...expiring].sort());
    expect(held.filter((row) => row.aggregate_id === paying).map((row) => row.event_kind)).toContain(
      'payment.completed',
    );
    await settle(1_000);
    const whileSuspended = receiver.received.filter((w) => w.envelope.created_at > suspendedAt);
    expect(whileSuspended.map((w) => w.envelope.event)).toEqual([]);
    const before = receiver.received.length;
    // Still held: not failed, not retried.
    expect((await rows()).filter((row) => row.status === 'HELD')).toHaveLength(held.length);

    // Resumed: each held event goes out once, in order per session.
    const resumed = await t.rest('POST', `/merchants/${merchant.merchantId}/resume`, { headers: admin(t) });
    expect(resumed.body.status).toBe('ACTIVE');
    await eventually(
      async () => (receiver.received.length >= before + held.length ? true : undefined),
      'the held events after resume',
    );
    await settle(1_000);
    const after = receiver.received.slice(before);
    expect(after).toHaveLength(held.length);
    expect(new Set(after.map((w) => w.envelope.id)).size).toBe(after.length);
    for (const w of after)
      expect(w.headers['x-service-signature']).toBe(serviceSignature(merchant.webhookSecret, w.body));
    // Every event of each session arrived exactly once overall, in sequence order.
    for (const id of [paying, ...expiring]) {
      const sequences = receiver.received.filter((w) => w.envelope.data.session_id === id).map(sequenceOf);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      expect(new Set(sequences).size).toBe(sequences.length);
    }
    expect(
      receiver.received
        .filter((w) => w.envelope.data.session_id === paying)
        .map((w) => w.envelope.event)
        .at(-1),
    ).toBe('payment.completed');

    // The log: DELIVERED, one attempt each; none left HELD.
    const listed = await t.rest('GET', '/webhooks/deliveries?limit=100', { headers: bearer(merchant.apiKey) });
    expect(listed.status).toBe(200);
    expect(listed.body.deliveries.filter((d: { status: string }) => d.status !== 'DELIVERED')).toEqual([]);
    expect((await rows()).filter((row) => row.status === 'HELD')).toEqual([]);
  });
});
