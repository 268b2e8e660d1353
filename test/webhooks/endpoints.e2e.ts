import { responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type RestResponse, type TestPlatform } from '../support/platform';
import {
  serviceSignature,
  standardWebhooksValid,
  startTestReceiver,
  type ReceivedWebhook,
  type TestWebhookReceiver,
} from '../support/webhook-receiver';

/** The spec's error body: code, and X-Request-Id as its request_id. */
function expectRefused(answer: RestResponse, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
  expect(answer.headers.get('x-request-id')).toBe(answer.body.error.request_id);
}

/**
 * Issue 30 "Done when": webhook endpoints with their own filters and secrets, a disabled one that
 * gets nothing, the events API, replay of a failed event with its event id, and the refusals.
 */
describe('webhook endpoints and events', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  const receivers: TestWebhookReceiver[] = [];
  const receiver = async () => {
    const started = await startTestReceiver();
    receivers.push(started);
    return started;
  };
  const paidSession = async (apiKey: string, payee: Customer, payer: Customer) => {
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: { amount: 1500, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: 'order-e' },
    });
    expect(created.status).toBe(201);
    const paid = await t.rest('POST', `/pay/${created.body.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(paid.status).toBe(200);
    return created.body.session_id as string;
  };
  const createEndpoint = async (apiKey: string, body: Record<string, unknown>) => {
    const answer = await t.rest('POST', '/webhooks/endpoints', { headers: bearer(apiKey), body });
    expect(answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/webhooks/endpoints').safeParse(answer.body).error).toBeUndefined();
    return answer.body as { endpoint_id: string; secret: string; enabled_events: string[] };
  };
  const signedBy = (secret: string, webhook: ReceivedWebhook) => {
    expect(webhook.headers['x-service-signature']).toBe(serviceSignature(secret, webhook.body));
    expect(standardWebhooksValid(secret, webhook)).toBe(true);
  };
  const of = (sessionId: string) => (w: ReceivedWebhook) => w.envelope.data.session_id === sessionId;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, env: { WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' } });
    bank = await startPaymentBank(t);
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await bank.sandbox.stop();
    await t.stop();
  });

  it('two endpoints with different filters each get only their events, signed with their own secret; a disabled one gets none', async () => {
    const [primary, completedOnly, initiatedOnly, disabled] = [
      await receiver(),
      await receiver(),
      await receiver(),
      await receiver(),
    ];
    const merchant = await t.seed.createMerchant({ webhook_url: primary.url });
    const a = await createEndpoint(merchant.apiKey, { url: completedOnly.url, enabled_events: ['payment.completed'] });
    const b = await createEndpoint(merchant.apiKey, {
      url: initiatedOnly.url,
      enabled_events: ['payment.initiated'],
      description: 'warehouse',
    });
    const c = await createEndpoint(merchant.apiKey, { url: disabled.url });
    expect(c.enabled_events).toEqual(['*']);
    expect(new Set([a.secret, b.secret, c.secret, merchant.webhookSecret]).size).toBe(4);
    const patched = await t.rest('PATCH', `/webhooks/endpoints/${c.endpoint_id}`, {
      headers: bearer(merchant.apiKey),
      body: { status: 'disabled' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.status).toBe('DISABLED');

    const sessionId = await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    const completed = await completedOnly.waitFor(of(sessionId), 'payment.completed at A');
    signedBy(a.secret, completed);
    const initiated = await initiatedOnly.waitFor(of(sessionId), 'payment.initiated at B');
    signedBy(b.secret, initiated);
    expect(initiated.envelope.event).toBe('payment.initiated');
    // The primary endpoint gets them all, signed with the merchant's secret.
    const last = await primary.waitFor((w) => of(sessionId)(w) && w.envelope.event === 'payment.completed');
    signedBy(merchant.webhookSecret, last);
    expect(last.envelope.id).toBe(completed.envelope.id);
    // Give any stray delivery time to arrive, then count.
    await eventually(async () => (primary.received.filter(of(sessionId)).length === 3 ? true : undefined), 'three');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(completedOnly.received.map((w) => w.envelope.event)).toEqual(['payment.completed']);
    expect(initiatedOnly.received.map((w) => w.envelope.event)).toEqual(['payment.initiated']);
    expect(disabled.received).toEqual([]);

    // The list: the primary endpoint first, then the others oldest first.
    const listed = await t.rest('GET', '/webhooks/endpoints', { headers: bearer(merchant.apiKey) });
    expect(listed.status).toBe(200);
    expect(responseSchemaOf('GET', '/webhooks/endpoints').safeParse(listed.body).error).toBeUndefined();
    expect(
      listed.body.endpoints.map((e: { endpoint_id: string; primary: boolean }) => [e.endpoint_id, e.primary]),
    ).toEqual([
      [`we_${merchant.merchantId}`, true],
      [a.endpoint_id, false],
      [b.endpoint_id, false],
      [c.endpoint_id, false],
    ]);

    // The event log: every event of the session, and one with its deliveries (primary and A).
    const events = await t.rest('GET', '/events?type=payment.completed', { headers: bearer(merchant.apiKey) });
    expect(events.status).toBe(200);
    expect(responseSchemaOf('GET', '/events').safeParse(events.body).error).toBeUndefined();
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({
      id: completed.envelope.id,
      event: 'payment.completed',
      livemode: true,
      sequence: 3,
      data: { session_id: sessionId },
    });
    const detail = await eventually(async () => {
      const answer = await t.rest('GET', `/events/${completed.envelope.id}`, { headers: bearer(merchant.apiKey) });
      return answer.body.deliveries?.every((d: { status: string }) => d.status === 'DELIVERED') ? answer : undefined;
    }, 'deliveries recorded');
    expect(responseSchemaOf('GET', '/events/{id}').safeParse(detail.body).error).toBeUndefined();
    expect(detail.body.deliveries.map((d: { endpoint_id: string }) => d.endpoint_id).sort()).toEqual(
      [`we_${merchant.merchantId}`, a.endpoint_id].sort(),
    );

    // Audited, without the secret.
    const audit = await t.rest('GET', `/admin/audit?target=${a.endpoint_id}`, {
      headers: { 'x-service-admin-key': t.adminKey },
    });
    expect(audit.status).toBe(200);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['webhook_endpoint.created']);
    expect(JSON.stringify(audit.body)).not.toContain(a.secret);
  });

  it('replay resends a failed event to its endpoint with its event id', async () => {
    const failing = await receiver();
    let healthy = false;
    failing.answer(() => (healthy ? 200 : 500));
    const merchant = await t.seed.createMerchant({});
    const from = new Date(Date.now() - 1000).toISOString();
    const endpoint = await createEndpoint(merchant.apiKey, { url: failing.url, enabled_events: ['payment.completed'] });
    const sessionId = await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    const first = await failing.waitFor(of(sessionId), 'the first attempt');
    const failed = await eventually(async () => {
      const answer = await t.rest('GET', `/events/${first.envelope.id}`, { headers: bearer(merchant.apiKey) });
      return answer.body.deliveries?.[0]?.status === 'FAILED' ? answer.body.deliveries[0] : undefined;
    }, 'the delivery to fail');
    expect(failed.attempts).toBe(3);

    healthy = true;
    const seen = failing.received.length;
    const to = new Date(Date.now() + 1000).toISOString();
    const replay = await t.rest('POST', `/webhooks/endpoints/${endpoint.endpoint_id}/replay`, {
      headers: bearer(merchant.apiKey),
      body: { from, to },
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ replayed: 1, events: 1, skipped_delivered: 0, skipped_pending: 0, reason: null });
    const again = await failing.waitFor((w) => failing.received.indexOf(w) >= seen, 'the replayed event');
    expect(again.envelope.id).toBe(first.envelope.id);
    expect(again.headers['webhook-id']).toBe(first.envelope.id);
    signedBy(endpoint.secret, again);

    // Once the replayed attempt is recorded, a range with no events: 202 with 0, and why.
    await eventually(async () => {
      const answer = await t.rest('GET', `/events/${first.envelope.id}`, { headers: bearer(merchant.apiKey) });
      return answer.body.deliveries?.[0]?.status === 'DELIVERED' ? true : undefined;
    }, 'the replayed delivery to be recorded');
    const none = await t.rest('POST', `/webhooks/endpoints/${endpoint.endpoint_id}/replay`, {
      headers: bearer(merchant.apiKey),
      body: { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z', only_failed: false },
    });
    expect([none.status, none.body]).toEqual([
      202,
      { replayed: 0, events: 0, skipped_delivered: 0, skipped_pending: 0, reason: 'NO_EVENTS' },
    ]);
  });

  it('refuses bad input naming the field, a forbidden network, and keeps test and live apart', async () => {
    const live = await t.seed.createMerchant({});
    const test = await t.seed.createMerchant({ mode: 'test' });
    const post = (apiKey: string, body: Record<string, unknown>) =>
      t.rest('POST', '/webhooks/endpoints', { headers: bearer(apiKey), body });

    const unknownEvent = await post(live.apiKey, { url: 'https://example.com/hook', enabled_events: ['payment.nope'] });
    expectRefused(unknownEvent, 400, 'VALIDATION_ERROR');
    expect(unknownEvent.body.error.detail).toMatch(/^enabled_events/);
    const badUrl = await post(live.apiKey, { url: 'not a url' });
    expectRefused(badUrl, 400, 'VALIDATION_ERROR');
    expect(badUrl.body.error.detail).toMatch(/^url/);
    // Cloud metadata (shared address space) is refused whatever PRIVATE_TARGETS says.
    const metadata = await post(live.apiKey, { url: 'http://100.100.100.200/latest' });
    expectRefused(metadata, 400, 'VALIDATION_ERROR');
    expect(metadata.body.error.detail).toMatch(/^url/);
    const badRange = await t.rest('POST', `/webhooks/endpoints/we_${live.merchantId}/replay`, {
      headers: bearer(live.apiKey),
      body: { from: 'yesterday', to: '2020-01-01T00:00:00Z' },
    });
    expectRefused(badRange, 400, 'VALIDATION_ERROR');
    expect(badRange.body.error.detail).toMatch(/^from/);

    const testEndpoint = await createEndpoint(test.apiKey, { url: 'https://example.com/test-hook' });
    expectRefused(
      await t.rest('GET', `/webhooks/endpoints/${testEndpoint.endpoint_id}`, { headers: bearer(live.apiKey) }),
      404,
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    );
    expectRefused(
      await t.rest('DELETE', `/webhooks/endpoints/${testEndpoint.endpoint_id}`, { headers: bearer(live.apiKey) }),
      404,
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    );
    expect((await t.rest('GET', '/webhooks/endpoints', { headers: bearer(live.apiKey) })).body.endpoints).toEqual([]);
    const mine = await t.rest('GET', `/webhooks/endpoints/${testEndpoint.endpoint_id}`, {
      headers: bearer(test.apiKey),
    });
    expect(mine.body).toMatchObject({ livemode: false, primary: false });
    expectRefused(await t.rest('GET', '/events/evt_unknown', { headers: bearer(test.apiKey) }), 404, 'EVENT_NOT_FOUND');
    const deleted = await t.rest('DELETE', `/webhooks/endpoints/${testEndpoint.endpoint_id}`, {
      headers: bearer(test.apiKey),
    });
    expect(deleted.status).toBe(204);
  });

  it('a TPP manages its own endpoints with its tpk_ token, in its world, Open Banking events only', async () => {
    const tpp = await t.seed.registerTpp({ mode: 'test', webhook_url: 'https://tpp.example/hooks' });
    const created = await createEndpoint(tpp.tppAccessToken, {
      url: 'https://tpp.example/granted',
      enabled_events: ['consent.granted'],
    });
    expect(created).toMatchObject({ livemode: false, primary: false, enabled_events: ['consent.granted'] });
    const listed = await t.rest('GET', '/webhooks/endpoints', { headers: bearer(tpp.tppAccessToken) });
    expect(listed.body.endpoints.map((e: { endpoint_id: string; url: string }) => [e.endpoint_id, e.url])).toEqual([
      [`we_${tpp.tppId}`, 'https://tpp.example/hooks'],
      [created.endpoint_id, 'https://tpp.example/granted'],
    ]);
    const merchantEvent = await t.rest('POST', '/webhooks/endpoints', {
      headers: bearer(tpp.tppAccessToken),
      body: { url: 'https://tpp.example/x', enabled_events: ['payment.completed'] },
    });
    expectRefused(merchantEvent, 400, 'VALIDATION_ERROR');
    const primary = await t.rest('PATCH', `/webhooks/endpoints/we_${tpp.tppId}`, {
      headers: bearer(tpp.tppAccessToken),
      body: { status: 'disabled' },
    });
    expectRefused(primary, 400, 'VALIDATION_ERROR');
    expect(primary.body.error.detail).toMatch(/^id/);
    expect((await t.rest('GET', '/events', { headers: bearer(tpp.tppAccessToken) })).body.events).toEqual([]);
  });
});
