import { newId } from '@gateway/kernel';
import { responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { gql } from '../support/graphql';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  serviceSignature,
  standardWebhooksValid,
  startTestReceiver,
  type TestWebhookReceiver,
} from '../support/webhook-receiver';

const DELIVERY = gql<
  {
    webhookDelivery: {
      id: string;
      eventId: string;
      status: string;
      attempts: number;
      lastStatusCode: number | null;
      nextAttemptAt: string | null;
      history: Array<{ number: number; statusCode: number | null; error: string | null; url: string | null }>;
    };
  },
  { id: string }
>(
  `query($id: ID!) { webhookDelivery(id: $id) { id eventId status attempts lastStatusCode nextAttemptAt history { number statusCode error url } } }`,
);

/** Signed webhooks end to end: session moves -> outbox -> bus -> dispatcher -> merchant endpoint. */
describe('webhooks', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  const receivers: TestWebhookReceiver[] = [];

  const receiver = async () => {
    const started = await startTestReceiver();
    receivers.push(started);
    return started;
  };
  const merchantWith = async (url: string) => t.seed.createMerchant({ webhook_url: url });
  const paidSession = async (apiKey: string, payee: Customer, payer: Customer, reference = 'order-1') => {
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: { amount: 1500, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference },
    });
    expect(created.status).toBe(201);
    const paid = await t.rest('POST', `/pay/${created.body.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(paid.status).toBe(200);
    return created.body.session_id as string;
  };
  const deliveries = async (apiKey: string, query = '') => {
    const answer = await t.rest('GET', `/webhooks/deliveries${query}`, { headers: bearer(apiKey) });
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('GET', '/webhooks/deliveries').safeParse(answer.body).error).toBeUndefined();
    return answer.body as {
      deliveries: Array<Record<string, any>>;
      pagination: { next_cursor: string | null; has_more: boolean };
    };
  };
  const deliveryOf = async (apiKey: string, eventId: string) =>
    (await deliveries(apiKey, '?limit=100')).deliveries.find((d) => d.event_id === eventId);

  beforeAll(async () => {
    // A short retry schedule so that retries and the final FAILED happen within the test.
    t = await startTestPlatform({
      paymentsEngine: FAST_ENGINE,
      env: { WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' },
      webhookAttemptTimeoutMs: 20_000,
    });
    bank = await startPaymentBank(t);
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await bank.sandbox.stop();
    await t.stop();
  });

  it('delivers every event of a paid session, signed both ways, with the event id on every header, and lists the deliveries', async () => {
    const endpoint = await receiver();
    const merchant = await merchantWith(endpoint.url);
    const sessionId = await paidSession(
      merchant.apiKey,
      await bank.customer({ balance: 0 }),
      await bank.customer(),
      'order-1001',
    );
    const completed = await endpoint.waitFor(
      (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === sessionId,
      'payment.completed',
    );

    expect(Object.keys(completed.envelope).sort()).toEqual([
      'created_at',
      'data',
      'event',
      'id',
      'livemode',
      'sequence',
    ]);
    expect((completed.envelope as { sequence?: number }).sequence).toBe(3);
    expect(completed.envelope.id).toMatch(/^evt_/);
    expect(completed.envelope.data).toMatchObject({
      session_id: sessionId,
      reference: 'order-1001',
      settlement_type: 'internal',
      creditor_bank: bank.handle,
      status: 'COMPLETED',
    });
    expect(completed.headers['x-service-signature']).toBe(serviceSignature(merchant.webhookSecret, completed.body));
    expect(standardWebhooksValid(merchant.webhookSecret, completed)).toBe(true);
    expect(completed.headers['x-service-event-id']).toBe(completed.envelope.id);
    expect(completed.headers['webhook-id']).toBe(completed.envelope.id);
    expect(new Date(completed.headers['x-service-timestamp']!).toISOString()).toBe(
      completed.headers['x-service-timestamp'],
    );
    expect(Number(completed.headers['webhook-timestamp'])).toBe(
      Math.floor(Date.parse(completed.headers['x-service-timestamp']!) / 1000),
    );
    expect(completed.headers['content-type']).toBe('application/json');

    // Each event of the session, as written to the outbox, reached the endpoint under its own id.
    const outbox = await t.platform.db
      .knex('payments.outbox')
      .where({ aggregate_id: sessionId })
      .orderBy('sequence')
      .select('id', 'kind');
    expect(outbox.map((row: { kind: string }) => row.kind)).toEqual([
      'payment.initiated',
      'payment.processing',
      'payment.completed',
    ]);
    for (const row of outbox as Array<{ id: string; kind: string }>)
      await endpoint.waitFor((w) => w.envelope.id === row.id && w.envelope.event === row.kind, row.kind);

    const listed = await eventually(async () => {
      const entry = await deliveryOf(merchant.apiKey, completed.envelope.id);
      return entry?.status === 'DELIVERED' ? entry : undefined;
    }, 'the delivery to be recorded');
    expect(listed).toEqual({
      delivery_id: expect.stringMatching(/^whd_/),
      endpoint_id: `we_${merchant.merchantId}`,
      livemode: true,
      event_id: completed.envelope.id,
      event: 'payment.completed',
      url: endpoint.url,
      status: 'DELIVERED',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    // Another merchant's key sees none of them.
    const stranger = await t.seed.createMerchant();
    expect((await deliveries(stranger.apiKey)).deliveries).toEqual([]);
  });

  it('pages the list with limit and cursor, newest first', async () => {
    const endpoint = await receiver();
    const merchant = await merchantWith(endpoint.url);
    await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    await eventually(
      async () => ((await deliveries(merchant.apiKey)).deliveries.length === 3 ? true : undefined),
      'three deliveries',
    );
    const first = await deliveries(merchant.apiKey, '?limit=2');
    expect(first.deliveries).toHaveLength(2);
    expect(first.pagination).toEqual({ next_cursor: first.deliveries[1]!.delivery_id, has_more: true });
    const second = await deliveries(merchant.apiKey, `?limit=2&cursor=${first.pagination.next_cursor}`);
    expect(second.deliveries).toHaveLength(1);
    expect(second.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(second.deliveries[0]!.event).toBe('payment.initiated');
    expect((await t.rest('GET', '/webhooks/deliveries?limit=0', { headers: bearer(merchant.apiKey) })).status).toBe(
      400,
    );
  });

  it("a session's events arrive in order: a later one waits while an earlier one is retried, and each carries its sequence", async () => {
    const endpoint = await receiver();
    const answered: Array<[string, number]> = [];
    // The first event (payment.initiated) is refused twice: the later ones must wait for it.
    endpoint.answer((webhook) => {
      const status =
        webhook.envelope.event === 'payment.initiated' &&
        endpoint.received.filter((w) => w.envelope.id === webhook.envelope.id).length <= 2
          ? 500
          : 200;
      answered.push([webhook.envelope.event, status]);
      return status;
    });
    const merchant = await merchantWith(endpoint.url);
    const sessionId = await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    await endpoint.waitFor(
      (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === sessionId,
      'payment.completed',
    );
    expect(answered).toEqual([
      ['payment.initiated', 500],
      ['payment.initiated', 500],
      ['payment.initiated', 200],
      ['payment.processing', 200],
      ['payment.completed', 200],
    ]);
    expect(endpoint.received.map((w) => (w.envelope as { sequence?: number }).sequence)).toEqual([1, 1, 1, 2, 3]);
  });

  it('a receiver that fails gets the same event again later, and every attempt is recorded', async () => {
    const endpoint = await receiver();
    endpoint.answer((webhook) =>
      endpoint.received.filter((w) => w.envelope.id === webhook.envelope.id).length <= 2 ? 500 : 200,
    );
    const merchant = await merchantWith(endpoint.url);
    const sessionId = await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    const completedId = (
      await endpoint.waitFor(
        (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === sessionId,
      )
    ).envelope.id;
    await eventually(
      async () => ((await deliveryOf(merchant.apiKey, completedId))?.status === 'DELIVERED' ? true : undefined),
      'delivery after retries',
    );
    const attempts = endpoint.received.filter((w) => w.envelope.id === completedId);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((w) => w.body)).size).toBe(1); // the same bytes every time
    expect(attempts.map((w) => w.headers['x-service-event-id'])).toEqual([completedId, completedId, completedId]);

    const listed = (await deliveryOf(merchant.apiKey, completedId))!;
    const detail = await t.execute(DELIVERY, { id: listed.delivery_id }, bearer(merchant.apiKey));
    expect(detail.webhookDelivery).toMatchObject({
      eventId: completedId,
      status: 'DELIVERED',
      attempts: 3,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    expect(detail.webhookDelivery.history.map((a) => [a.number, a.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
  });

  it('marks a delivery FAILED when the schedule is spent; a manual retry sends it again, signed with the rotated secret', async () => {
    const endpoint = await receiver();
    endpoint.answer(() => 503);
    const merchant = await merchantWith(endpoint.url);
    const sessionId = await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    const completedId = (
      await endpoint.waitFor(
        (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === sessionId,
      )
    ).envelope.id;
    const failed = await eventually(async () => {
      const entry = await deliveryOf(merchant.apiKey, completedId);
      return entry?.status === 'FAILED' ? entry : undefined;
    }, 'the delivery to fail');
    expect(failed).toMatchObject({ attempts: 3, last_status_code: 503, next_attempt_at: null });

    const rotated = await t.rest('POST', `/merchants/${merchant.merchantId}/rotate-webhook-secret`, {
      headers: bearer(merchant.apiKey),
    });
    const newSecret = rotated.body.webhook_secret as string;
    endpoint.answer(() => 200);
    const before = endpoint.received.length;
    const retried = await t.rest('POST', `/webhooks/deliveries/${failed.delivery_id}/retry`, {
      headers: bearer(merchant.apiKey),
    });
    expect(retried.status).toBe(202);
    expect(responseSchemaOf('POST', '/webhooks/deliveries/{id}/retry').safeParse(retried.body).error).toBeUndefined();
    expect(retried.body).toMatchObject({ delivery_id: failed.delivery_id, status: 'PENDING' });
    const again = await endpoint.waitFor(
      (w) => endpoint.received.indexOf(w) >= before && w.envelope.id === completedId,
      'the manual retry',
    );
    expect(again.headers['x-service-signature']).toBe(serviceSignature(newSecret, again.body));
    expect(again.headers['x-service-signature']).not.toBe(serviceSignature(merchant.webhookSecret, again.body));
    expect(standardWebhooksValid(newSecret, again)).toBe(true);
    await eventually(
      async () => ((await deliveryOf(merchant.apiKey, completedId))?.status === 'DELIVERED' ? true : undefined),
      'DELIVERED after the retry',
    );

    const stranger = await t.seed.createMerchant();
    const refused = await t.rest('POST', `/webhooks/deliveries/${failed.delivery_id}/retry`, {
      headers: bearer(stranger.apiKey),
    });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'WEBHOOK_DELIVERY_NOT_FOUND']);
  });

  it('a receiver that does not answer holds up no other merchant', async () => {
    const silent = await receiver();
    silent.answer(() => 'hang');
    const healthy = await receiver();
    const slowMerchant = await merchantWith(silent.url);
    const otherMerchant = await merchantWith(healthy.url);
    const slowSession = await paidSession(
      slowMerchant.apiKey,
      await bank.customer({ balance: 0 }),
      await bank.customer(),
    );
    await silent.waitFor(
      (w) => w.envelope.data.session_id === slowSession && w.envelope.event === 'payment.initiated',
      "the slow merchant's first attempt to be in flight",
    );
    const otherSession = await paidSession(
      otherMerchant.apiKey,
      await bank.customer({ balance: 0 }),
      await bank.customer(),
    );
    const delivered = await healthy.waitFor(
      (w) => w.envelope.data.session_id === otherSession && w.envelope.event === 'payment.completed',
    );
    expect(delivered.headers['x-service-signature']).toBe(
      serviceSignature(otherMerchant.webhookSecret, delivered.body),
    );
    // The slow merchant's first event is still waiting for an answer (20 s deadline in this test),
    // and its session's later events wait their turn behind it, unsent.
    const slowInitiated = silent.received.find((w) => w.envelope.event === 'payment.initiated')!;
    expect(await deliveryOf(slowMerchant.apiKey, slowInitiated.envelope.id)).toMatchObject({
      status: 'PENDING',
      attempts: 0,
    });
    expect(
      silent.received.filter((w) => w.envelope.data.session_id === slowSession).map((w) => w.envelope.event),
    ).toEqual(['payment.initiated']);
    const listed = (await deliveries(slowMerchant.apiKey, '?limit=10')).deliveries;
    expect(listed.map((d) => [d.event, d.status, d.attempts]).sort()).toEqual([
      ['payment.completed', 'PENDING', 0],
      ['payment.initiated', 'PENDING', 0],
      ['payment.processing', 'PENDING', 0],
    ]);
  });

  it('an event the bus hands over twice is delivered once, under its one id', async () => {
    const endpoint = await receiver();
    const merchant = await merchantWith(endpoint.url);
    const sessionId = newId('paymentSession');
    // Shaped as the session writer's payment.expired (the receiver checks it against the OpenAPI document).
    const event = {
      id: newId('event'),
      kind: 'payment.expired',
      aggregateType: 'payment_session',
      aggregateId: sessionId,
      audience: merchant.merchantId,
      createdAt: new Date().toISOString(),
      data: {
        session_id: sessionId,
        livemode: true,
        status: 'EXPIRED',
        amount: 1500,
        currency: 'LYD',
        reference: null,
        merchant_id: merchant.merchantId,
      },
    };
    await t.platform.bus.publish(event);
    await endpoint.waitFor((w) => w.envelope.id === event.id);
    await eventually(
      async () => ((await deliveryOf(merchant.apiKey, event.id))?.status === 'DELIVERED' ? true : undefined),
      'the first delivery',
    );
    await t.platform.bus.publish(event);
    const witness = { ...event, id: newId('event') };
    await t.platform.bus.publish(witness);
    await endpoint.waitFor((w) => w.envelope.id === witness.id);
    const rows = await t.platform.db.knex('payments.webhook_deliveries').where({ event_id: event.id });
    expect(rows).toHaveLength(1);
    expect(endpoint.received.filter((w) => w.envelope.id === event.id)).toHaveLength(1);
  });
});
