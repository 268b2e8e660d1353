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
import { startTestReceiver, type ReceivedWebhook, type TestWebhookReceiver } from '../support/webhook-receiver';

/** The spec's error body: code, and X-Request-Id as its request_id. */
function expectRefused(answer: RestResponse, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
  expect(answer.headers.get('x-request-id')).toBe(answer.body.error.request_id);
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 46, "Replay within bounds". The review's probe: a replay over 2020–2030 with only_failed
 * false re-queued every event of 30 days, DELIVERED ones too, for one write point; three calls sent
 * 37 POSTs. Now: at most 7 days, FAILED ones by default, never a delivered one again to an old
 * endpoint, one replay of an endpoint at a time, and the answer says why nothing was sent.
 */
describe('webhook replay within bounds', () => {
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
      body: { amount: 1500, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect(created.status).toBe(201);
    const paid = await t.rest('POST', `/pay/${created.body.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(paid.status).toBe(200);
    return created.body.session_id as string;
  };
  const createEndpoint = async (apiKey: string, url: string) => {
    const answer = await t.rest('POST', '/webhooks/endpoints', { headers: bearer(apiKey), body: { url } });
    expect(answer.status).toBe(201);
    return answer.body.endpoint_id as string;
  };
  const replay = (apiKey: string, endpointId: string, body: Record<string, unknown>) =>
    t.rest('POST', `/webhooks/endpoints/${endpointId}/replay`, { headers: bearer(apiKey), body });
  /** The endpoint's deliveries once none is PENDING any more (each attempt recorded). */
  const settled = (apiKey: string, endpointId: string, count: number) =>
    eventually(async () => {
      const listed = await t.rest('GET', '/webhooks/deliveries?limit=100', { headers: bearer(apiKey) });
      const mine = listed.body.deliveries.filter((d: { endpoint_id: string }) => d.endpoint_id === endpointId);
      return mine.length === count && mine.every((d: { status: string }) => d.status !== 'PENDING')
        ? (mine as Array<{ status: string; event_id: string }>)
        : undefined;
    }, `${count} deliveries to ${endpointId} settled`);
  /** An endpoint added more than 24 hours ago (the rule for resending what it got already). */
  const age = (endpointId: string) =>
    t.platform.db
      .knex('payments.webhook_endpoints')
      .where({ id: endpointId })
      .update({ created_at: new Date(Date.now() - 2 * 86_400_000) });
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

  it('the 10-year probe is 400 naming to, and nothing is sent', async () => {
    const target = await receiver();
    const merchant = await t.seed.createMerchant({});
    const endpointId = await createEndpoint(merchant.apiKey, target.url);
    await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    await settled(merchant.apiKey, endpointId, 3);
    const seen = target.received.length;
    for (const onlyFailed of [false, true]) {
      const probe = await replay(merchant.apiKey, endpointId, {
        from: '2020-01-01T00:00:00Z',
        to: '2030-01-01T00:00:00Z',
        only_failed: onlyFailed,
      });
      expectRefused(probe, 400, 'VALIDATION_ERROR');
      expect(probe.body.error.detail).toMatch(/^to: must be at most 7 days after from/);
    }
    await settle(500);
    expect(target.received.length).toBe(seen);
  });

  it('a 7-day replay sends only the FAILED ones by default; an old endpoint never gets a DELIVERED one again, a new one may', async () => {
    const target = await receiver();
    let healthy = true;
    target.answer(() => (healthy ? 200 : 500));
    const merchant = await t.seed.createMerchant({});
    const from = new Date(Date.now() - 60_000).toISOString();
    const endpointId = await createEndpoint(merchant.apiKey, target.url);
    const delivered = await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    await settled(merchant.apiKey, endpointId, 3);
    healthy = false;
    const failed = await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    const statuses = await settled(merchant.apiKey, endpointId, 6);
    expect(statuses.map((d) => d.status).sort()).toEqual([
      'DELIVERED',
      'DELIVERED',
      'DELIVERED',
      'FAILED',
      'FAILED',
      'FAILED',
    ]);

    healthy = true;
    const seen = target.received.length;
    const to = new Date(Date.now() + 60_000).toISOString();
    const first = await replay(merchant.apiKey, endpointId, { from, to });
    expect(first.status).toBe(202);
    expect(responseSchemaOf('POST', '/webhooks/endpoints/{id}/replay').safeParse(first.body).error).toBeUndefined();
    expect(first.body).toEqual({ replayed: 3, events: 6, skipped_delivered: 3, skipped_pending: 0, reason: null });
    await settled(merchant.apiKey, endpointId, 6).then((all) =>
      expect(all.every((d) => d.status === 'DELIVERED')).toBe(true),
    );
    await settle(300);
    const resent = target.received.slice(seen);
    // Only the failed session's three events, in order, each with its event id; the delivered session's none.
    expect(resent.map((w) => [w.envelope.data.session_id, (w.envelope as { sequence?: number }).sequence])).toEqual([
      [failed, 1],
      [failed, 2],
      [failed, 3],
    ]);
    expect(resent.filter(of(delivered))).toEqual([]);

    // The review's probe on an endpoint older than a day: every event is delivered, so three calls send none.
    await age(endpointId);
    const before = target.received.length;
    for (let call = 0; call < 3; call += 1) {
      const again = await replay(merchant.apiKey, endpointId, { from, to, only_failed: false });
      expect([again.status, again.body]).toEqual([
        202,
        { replayed: 0, events: 6, skipped_delivered: 6, skipped_pending: 0, reason: 'ALREADY_SENT' },
      ]);
    }
    const nothingFailed = await replay(merchant.apiKey, endpointId, { from, to });
    expect(nothingFailed.body).toMatchObject({ replayed: 0, reason: 'NOTHING_FAILED' });
    await settle(500);
    expect(target.received.length).toBe(before);

    // A new endpoint asking for every event gets those it never had, and, while it is new, those it got.
    const fresh = await receiver();
    const freshId = await createEndpoint(merchant.apiKey, fresh.url);
    expect((await replay(merchant.apiKey, freshId, { from, to, only_failed: false })).body).toMatchObject({
      replayed: 6,
      reason: null,
    });
    await settled(merchant.apiKey, freshId, 6);
    expect((await replay(merchant.apiKey, freshId, { from, to, only_failed: false })).body).toMatchObject({
      replayed: 6,
      skipped_delivered: 0,
    });
    await settled(merchant.apiKey, freshId, 6);
    await eventually(async () => (fresh.received.length === 12 ? true : undefined), 'the new endpoint to get both');
    await age(freshId);
    expect((await replay(merchant.apiKey, freshId, { from, to, only_failed: false })).body).toMatchObject({
      replayed: 0,
      reason: 'ALREADY_SENT',
    });
  });

  it('a second replay of an endpoint while the first one is still sending is 409 WEBHOOK_REPLAY_IN_PROGRESS', async () => {
    const target = await receiver();
    let answer: () => number | Promise<number> = () => 500;
    target.answer(() => answer());
    const merchant = await t.seed.createMerchant({});
    const from = new Date(Date.now() - 60_000).toISOString();
    const endpointId = await createEndpoint(merchant.apiKey, target.url);
    await paidSession(merchant.apiKey, await bank.customer({ balance: 0 }), await bank.customer());
    await settled(merchant.apiKey, endpointId, 3);
    // The receiver now answers, slowly: the first replay's events are still on their way.
    answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 1_000));
    const to = new Date(Date.now() + 60_000).toISOString();
    const both = await Promise.all([
      replay(merchant.apiKey, endpointId, { from, to }),
      replay(merchant.apiKey, endpointId, { from, to }),
    ]);
    expect(both.map((one) => one.status).sort()).toEqual([202, 409]);
    expect(both.find((one) => one.status === 202)!.body).toMatchObject({ replayed: 3 });
    expectRefused(
      both.find((one) => one.status === 409)!,
      409,
      'WEBHOOK_REPLAY_IN_PROGRESS',
    );
    expectRefused(await replay(merchant.apiKey, endpointId, { from, to }), 409, 'WEBHOOK_REPLAY_IN_PROGRESS');
    // Once its events are sent, the endpoint can be replayed again (nothing failed now).
    await settled(merchant.apiKey, endpointId, 3);
    const after = await replay(merchant.apiKey, endpointId, { from, to });
    expect([after.status, after.body.reason]).toEqual([202, 'NOTHING_FAILED']);
  });
});
