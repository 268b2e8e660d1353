import { webhooks } from '@gateway/sdk';
import { responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  serviceSignature,
  standardWebhooksValid,
  startTestReceiver,
  type ReceivedWebhook,
  type TestWebhookReceiver,
} from '../support/webhook-receiver';
import { admin, pay } from './support';

/**
 * Issue 48, item 4 (API-CONTRACT "Net debit caps and positions": "Events to the operator and the
 * bank, once per crossing"): the operator (admin key) and a bank (its bank key) register webhook
 * endpoints of their own, and each gets liquidity.threshold_reached at 80% and 100% and
 * liquidity.cap_reached exactly once per crossing, signed with its endpoint's secret. Each owner
 * sees only its own endpoints and events; a merchant cannot subscribe to liquidity events; a
 * suspended bank cannot manage its endpoints but still hears of its position.
 */
describe('liquidity events to the operator and the bank', () => {
  let t: TestPlatform;
  let a: PaymentBank;
  let b: PaymentBank;
  let c: PaymentBank;
  let payers: Customer[];
  let payee: Customer;
  let merchant: { merchantId: string; apiKey: string };
  const receivers: TestWebhookReceiver[] = [];
  const AMOUNT = 500;
  const CAP = 5 * AMOUNT;
  const LIQUIDITY = ['liquidity.threshold_reached', 'liquidity.cap_reached'];

  const receiver = async () => {
    const started = await startTestReceiver();
    receivers.push(started);
    return started;
  };
  const bankKey = (bank: PaymentBank) => ({ 'x-service-bank-key': bank.bankKey });
  const createEndpoint = async (headers: Record<string, string>, body: Record<string, unknown>) => {
    const answer = await t.rest('POST', '/webhooks/endpoints', { headers, body });
    expect([answer.status, answer.body.error]).toEqual([201, undefined]);
    expect(responseSchemaOf('POST', '/webhooks/endpoints').safeParse(answer.body).error).toBeUndefined();
    return answer.body as { endpoint_id: string; secret: string; livemode: boolean; enabled_events: string[] };
  };
  const listed = async (headers: Record<string, string>) => {
    const answer = await t.rest('GET', '/webhooks/endpoints', { headers });
    expect(answer.status).toBe(200);
    return (answer.body.endpoints as Array<{ endpoint_id: string }>).map((endpoint) => endpoint.endpoint_id);
  };
  /** Signed with this secret, by both schemes, as the spec's check, Standard Webhooks and the SDK verify it. */
  const signedBy = (secret: string, webhook: ReceivedWebhook) => {
    expect(webhook.headers['x-service-signature']).toBe(serviceSignature(secret, webhook.body));
    expect(standardWebhooksValid(secret, webhook)).toBe(true);
    expect(webhooks.verify(webhook.body, webhook.headers, secret).id).toBe(webhook.envelope.id);
  };
  const liquidityOf = (received: ReceivedWebhook[]) =>
    received
      .filter((webhook) => LIQUIDITY.includes(webhook.envelope.event))
      .map((webhook) => webhook.envelope as ReceivedWebhook['envelope'] & { sequence: number; livemode: boolean });
  const quietFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    t = await startTestPlatform({
      paymentsEngine: FAST_ENGINE,
      // Retries a second apart for ten seconds: the suspended bank's receiver answers 503 until it is suspended.
      env: { SETTLEMENT_INTERVAL_SECONDS: '0', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1' },
    });
    [a, b, c] = [await startPaymentBank(t), await startPaymentBank(t), await startPaymentBank(t)];
    payers = [];
    for (let i = 0; i < 3; i += 1) payers.push(await a.customer({ balance: 1_000_000 }));
    payee = await b.customer();
    merchant = await t.seed.createMerchant({ name: 'Liquidity Shop' });
  }, 120_000);
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    for (const bank of [a, b, c]) await bank?.sandbox.stop();
    await t?.stop();
  });

  let operatorHook: TestWebhookReceiver;
  let bankHook: TestWebhookReceiver;
  let otherBankHook: TestWebhookReceiver;
  let operatorTestHook: TestWebhookReceiver;
  let operatorEndpoint: { endpoint_id: string; secret: string };
  let bankEndpoint: { endpoint_id: string; secret: string };
  let otherBankEndpoint: { endpoint_id: string; secret: string };

  it('the operator and each bank register endpoints of their own; a merchant cannot subscribe to liquidity events', async () => {
    [operatorHook, bankHook, otherBankHook, operatorTestHook] = [
      await receiver(),
      await receiver(),
      await receiver(),
      await receiver(),
    ];
    operatorEndpoint = await createEndpoint(admin(t), { url: operatorHook.url, enabled_events: LIQUIDITY });
    expect(operatorEndpoint).toMatchObject({ livemode: true, enabled_events: LIQUIDITY, primary: false });
    const operatorTest = await createEndpoint(admin(t), { url: operatorTestHook.url, mode: 'test' });
    expect(operatorTest).toMatchObject({ livemode: false, enabled_events: ['*'] });
    bankEndpoint = await createEndpoint(bankKey(a), { url: bankHook.url, description: 'treasury desk' });
    expect(bankEndpoint).toMatchObject({ livemode: true, enabled_events: ['*'], description: 'treasury desk' });
    otherBankEndpoint = await createEndpoint(bankKey(c), { url: otherBankHook.url });
    expect(new Set([operatorEndpoint.secret, bankEndpoint.secret, otherBankEndpoint.secret]).size).toBe(3);

    // Each sees its own, of both worlds for the operator, and no webhook_url (no primary endpoint).
    expect((await listed(admin(t))).sort()).toEqual([operatorEndpoint.endpoint_id, operatorTest.endpoint_id].sort());
    expect(await listed(bankKey(a))).toEqual([bankEndpoint.endpoint_id]);
    expect(await listed(bankKey(c))).toEqual([otherBankEndpoint.endpoint_id]);

    // A bank key reaches neither another bank's endpoints nor the operator's: 404 as for an unknown id.
    for (const id of [bankEndpoint.endpoint_id, operatorEndpoint.endpoint_id]) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { status: 'disabled' }],
        ['DELETE', undefined],
      ] as const) {
        const refused = await t.rest(method, `/webhooks/endpoints/${id}`, { headers: bankKey(c), body });
        expect([method, refused.status, refused.body.error?.code]).toEqual([method, 404, 'WEBHOOK_ENDPOINT_NOT_FOUND']);
      }
    }
    // Nor does the operator's admin key reach a bank's (the bank's own business).
    const byAdmin = await t.rest('GET', `/webhooks/endpoints/${bankEndpoint.endpoint_id}`, { headers: admin(t) });
    expect([byAdmin.status, byAdmin.body.error?.code]).toEqual([404, 'WEBHOOK_ENDPOINT_NOT_FOUND']);
    // A bank changes its own; liquidity events only.
    const patched = await t.rest('PATCH', `/webhooks/endpoints/${bankEndpoint.endpoint_id}`, {
      headers: bankKey(a),
      body: { enabled_events: LIQUIDITY },
    });
    expect([patched.status, patched.body.enabled_events]).toEqual([200, LIQUIDITY]);
    const notLiquidity = await t.rest('PATCH', `/webhooks/endpoints/${bankEndpoint.endpoint_id}`, {
      headers: bankKey(a),
      body: { enabled_events: ['payment.completed'] },
    });
    expect([notLiquidity.status, notLiquidity.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(notLiquidity.body.error.detail).toMatch(/^enabled_events/);

    // A merchant's key: liquidity events are not a merchant's (400 naming enabled_events), nor is another world.
    for (const events of [['liquidity.threshold_reached'], ['payment.completed', 'liquidity.cap_reached']]) {
      const refused = await t.rest('POST', '/webhooks/endpoints', {
        headers: bearer(merchant.apiKey),
        body: { url: operatorHook.url, enabled_events: events },
      });
      expect([refused.status, refused.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(refused.body.error.detail).toMatch(/^enabled_events: unknown event "liquidity\./);
    }
    const otherWorld = await t.rest('POST', '/webhooks/endpoints', {
      headers: bearer(merchant.apiKey),
      body: { url: operatorHook.url, mode: 'test' },
    });
    expect([otherWorld.status, otherWorld.body.error?.detail]).toEqual([400, expect.stringMatching(/^mode/)]);
  });

  it('payments crossing 80% and 100% of a cap: the operator and the bank each get threshold_reached@80, @100 and cap_reached exactly once, signed with their own secret', async () => {
    const set = await t.rest('PUT', `/banks/${a.handle}/net-debit-caps/LYD`, {
      headers: admin(t),
      body: { net_debit_cap: CAP },
    });
    expect(set.status).toBe(200);
    for (let i = 0; i < 5; i += 1) await pay(t, merchant.apiKey, payers[i % payers.length]!, payee, AMOUNT);
    const over = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: AMOUNT, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    const refused = await t.rest('POST', `/pay/${over.body.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payers[0]!.alias }, otp: payers[0]!.otp },
    });
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'NET_DEBIT_CAP_EXCEEDED']);

    const expected = [
      { event: 'liquidity.threshold_reached', threshold: 80, position: 4 * AMOUNT },
      { event: 'liquidity.threshold_reached', threshold: 100, position: CAP },
      { event: 'liquidity.cap_reached', threshold: 100, position: CAP },
    ];
    const got: Record<string, ReturnType<typeof liquidityOf>> = {};
    for (const [name, hook, secret] of [
      ['operator', operatorHook, operatorEndpoint.secret],
      ['bank', bankHook, bankEndpoint.secret],
    ] as const) {
      await hook.waitFor((webhook) => webhook.envelope.event === 'liquidity.cap_reached', `${name}: cap_reached`);
      // Time for a stray duplicate to arrive, then count.
      await quietFor(1_500);
      const envelopes = liquidityOf(hook.received);
      expect(
        envelopes.map((e) => ({ event: e.event, threshold: e.data.threshold, position: e.data.position })),
      ).toEqual(expected);
      // Its own sequence: the receiver's events of this position, from 1, with no gap.
      expect(envelopes.map((e) => e.sequence)).toEqual([1, 2, 3]);
      for (const envelope of envelopes)
        expect(envelope).toMatchObject({
          livemode: true,
          data: { bank_handle: a.handle, currency: 'LYD', livemode: true, net_debit_cap: CAP },
        });
      for (const webhook of hook.received) signedBy(secret, webhook);
      expect(hook.received.map((webhook) => webhook.headers['x-service-event-id'])).toEqual(envelopes.map((e) => e.id));
      got[name] = envelopes;
    }
    // Two events per crossing, each with its own id: the bank's and the operator's.
    const ids = [...got.operator!, ...got.bank!].map((e) => e.id);
    expect(new Set(ids).size).toBe(6);
    // Another bank's endpoint and the operator's test-world endpoint get nothing.
    expect(otherBankHook.received).toEqual([]);
    expect(operatorTestHook.received).toEqual([]);

    // The event log: each owner's own, with its deliveries; another bank's key sees none of them.
    const events = async (headers: Record<string, string>) => {
      const answer = await t.rest('GET', '/events', { headers });
      expect(answer.status).toBe(200);
      return (answer.body.events as Array<{ id: string }>).map((event) => event.id).sort();
    };
    expect(await events(admin(t))).toEqual(got.operator!.map((e) => e.id).sort());
    expect(await events(bankKey(a))).toEqual(got.bank!.map((e) => e.id).sort());
    expect(await events(bankKey(c))).toEqual([]);
    const one = await t.rest('GET', `/events/${got.bank![2]!.id}`, { headers: bankKey(a) });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ event: 'liquidity.cap_reached', sequence: 3, livemode: true });
    expect(one.body.deliveries).toMatchObject([
      { endpoint_id: bankEndpoint.endpoint_id, status: 'DELIVERED', attempts: 1, last_status_code: 200 },
    ]);
    for (const [headers, id] of [
      [bankKey(c), got.bank![0]!.id],
      [bankKey(a), got.operator![0]!.id],
    ] as const) {
      const hidden = await t.rest('GET', `/events/${id}`, { headers });
      expect([hidden.status, hidden.body.error?.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    }
  });

  it("a suspended bank's key cannot manage its endpoints (403 BANK_SUSPENDED), and its liquidity events still reach it", async () => {
    // A cycle brings the position back to 0; four payments cross 80% again.
    const cycle = await t.rest('POST', '/settlement/cycles', { headers: admin(t) });
    expect(cycle.status).toBe(201);
    let open = false;
    const answered: Array<{ id: string; status: number }> = [];
    bankHook.answer((webhook) => {
      const status = open ? 200 : 503;
      answered.push({ id: webhook.envelope.id, status });
      return status;
    });
    const before = bankHook.received.length;
    for (let i = 0; i < 4; i += 1) await pay(t, merchant.apiKey, payers[i % payers.length]!, payee, AMOUNT);
    const first = await bankHook.waitFor(
      (webhook) =>
        bankHook.received.indexOf(webhook) >= before && webhook.envelope.event === 'liquidity.threshold_reached',
      'the new crossing at the bank (answered 503)',
    );
    expect(first.envelope.data).toMatchObject({ threshold: 80, position: 4 * AMOUNT });

    const suspended = await t.rest('POST', `/banks/${a.handle}/suspend`, {
      headers: admin(t),
      body: { reason: 'liquidity review' },
    });
    expect(suspended.status).toBe(200);
    for (const [method, path, body] of [
      ['GET', '/webhooks/endpoints', undefined],
      ['POST', '/webhooks/endpoints', { url: bankHook.url }],
      ['PATCH', `/webhooks/endpoints/${bankEndpoint.endpoint_id}`, { status: 'disabled' }],
      ['GET', '/events', undefined],
    ] as const) {
      const refused = await t.rest(method, path, { headers: bankKey(a), body });
      expect([method, path, refused.status, refused.body.error?.code]).toEqual([method, path, 403, 'BANK_SUSPENDED']);
    }
    // Still suspended: the next attempt goes out (not HELD) and is delivered.
    open = true;
    await eventually(
      async () => (answered.some((x) => x.id === first.envelope.id && x.status === 200) ? true : undefined),
      "the suspended bank's delivery",
    );
    // Its record may ride on the worker's next statement: wait for it.
    const row = await eventually(async () => {
      const [delivery] = await t.platform.db
        .knex('payments.webhook_deliveries')
        .where({ event_id: first.envelope.id })
        .select('status', 'attempts');
      return delivery?.status === 'DELIVERED' ? delivery : undefined;
    }, 'the delivery recorded DELIVERED');
    expect(row.attempts).toBeGreaterThanOrEqual(2);
    signedBy(bankEndpoint.secret, bankHook.received.at(-1)!);
    // The operator heard of it too, once.
    await operatorHook.waitFor(
      (webhook) =>
        webhook.envelope.event === 'liquidity.threshold_reached' &&
        (webhook.envelope as { sequence?: number }).sequence === 4,
      "the operator's event of the new crossing",
    );
    expect(liquidityOf(operatorHook.received)).toHaveLength(4);

    const resumed = await t.rest('POST', `/banks/${a.handle}/resume`, { headers: admin(t), body: {} });
    expect(resumed.status).toBe(200);
    expect(await listed(bankKey(a))).toEqual([bankEndpoint.endpoint_id]);
    const removed = await t.rest('DELETE', `/webhooks/endpoints/${bankEndpoint.endpoint_id}`, { headers: bankKey(a) });
    expect(removed.status).toBe(204);
    expect(await listed(bankKey(a))).toEqual([]);
  });
});
