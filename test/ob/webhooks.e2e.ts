import { newId } from '@gateway/kernel';
import { responseSchemaOf } from '@gateway/rest-compat/testing';
import { approveConsent, createConsent, enableOpenBanking } from '../support/consent-flow';
import { gql } from '../support/graphql';
import { bearer, eventually, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  serviceSignature,
  standardWebhooksValid,
  startTestReceiver,
  type ReceivedWebhook,
  type TestWebhookReceiver,
} from '../support/webhook-receiver';

const REDIRECT = 'https://tpp.example/callback';

type Tpp = { tppId: string; tppAccessToken: string; webhookSecret: string };

const DELIVERIES = gql<
  {
    webhookDeliveries: {
      edges: Array<{
        node: {
          id: string;
          event: string;
          status: string;
          history: Array<{ number: number; statusCode: number | null }>;
        };
      }>;
    };
  },
  Record<string, never>
>(`query { webhookDeliveries(first: 100) { edges { node { id event status history { number statusCode } } } } }`);

const TARGET = gql<{ tppWebhookTarget: { url: string | null; sealedSecret: string } | null }, { tppId: string }>(
  `query($tppId: ID!) { tppWebhookTarget(tppId: $tppId) { url sealedSecret } }`,
);

/**
 * Open Banking webhooks end to end: consent moves -> open-banking's outbox -> bus -> the one
 * webhook dispatcher (payments) -> the TPP's endpoint, signed with the TPP's secret, which the
 * dispatcher reads from open-banking through the router. On RabbitMQ when AMQP_URL is set.
 */
describe('Open Banking webhooks to TPPs', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  const receivers: TestWebhookReceiver[] = [];

  const receiver = async () => {
    const started = await startTestReceiver();
    receivers.push(started);
    return started;
  };
  const tppWith = async (url: string | null): Promise<Tpp> =>
    t.seed.registerTpp({ webhook_url: url, redirect_uris: [REDIRECT] });
  const grantedConsent = async (tpp: Tpp) => {
    const { consentId } = await createConsent(t, tpp.tppAccessToken, {
      bank_handle: bank.handle,
      redirect_uri: REDIRECT,
    });
    await approveConsent(t, consentId, await bank.customer());
    return consentId;
  };
  const deliveries = async (token: string) => {
    const answer = await t.rest('GET', '/webhooks/deliveries?limit=100', { headers: bearer(token) });
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('GET', '/webhooks/deliveries').safeParse(answer.body).error).toBeUndefined();
    return answer.body.deliveries as Array<Record<string, any>>;
  };
  const deliveryOf = async (token: string, eventId: string) =>
    (await deliveries(token)).find((d) => d.event_id === eventId);
  const settled = (token: string, eventId: string, status: string) =>
    eventually(async () => {
      const entry = await deliveryOf(token, eventId);
      return entry?.status === status ? entry : undefined;
    }, `delivery ${eventId} ${status}`);
  const expectSignedBy = (secret: string, webhook: ReceivedWebhook) => {
    expect(webhook.headers['x-service-signature']).toBe(serviceSignature(secret, webhook.body));
    expect(standardWebhooksValid(secret, webhook)).toBe(true);
    expect(webhook.headers['x-service-event-id']).toBe(webhook.envelope.id);
    expect(webhook.headers['webhook-id']).toBe(webhook.envelope.id);
  };
  const eventOf = (endpoint: TestWebhookReceiver, kind: string, consentId: string) =>
    endpoint.waitFor(
      (w) => w.envelope.event === kind && w.envelope.data.consent_id === consentId,
      `${kind} of ${consentId}`,
    );

  beforeAll(async () => {
    // A short retry schedule and a fast expiry job, so retries, FAILED and consent.expired happen within the test.
    t = await startTestPlatform({
      env: { WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' },
      openBankingJobs: { consentExpiryIntervalMs: 100 },
    });
    bank = await startPaymentBank(t);
    await enableOpenBanking(t, bank);
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await bank.sandbox.stop();
    await t.stop();
  });

  it('consent.granted, consent.revoked and consent.expired reach the TPP, signed with its secret, and show in its delivery log', async () => {
    const endpoint = await receiver();
    const tpp = await tppWith(endpoint.url);

    const consentId = await grantedConsent(tpp);
    const granted = await eventOf(endpoint, 'consent.granted', consentId);
    expect(Object.keys(granted.envelope).sort()).toEqual(['created_at', 'data', 'event', 'id', 'livemode', 'sequence']);
    expect(granted.envelope.data).toMatchObject({
      consent_id: consentId,
      status: 'AUTHORISED',
      tpp_id: tpp.tppId,
      bank_handle: bank.handle,
    });
    expectSignedBy(tpp.webhookSecret, granted);
    // The envelope is the outbox's event, under its own id.
    const outbox = await t.platform.db
      .knex('open_banking.outbox')
      .where({ aggregate_id: consentId, kind: 'consent.granted' })
      .first();
    expect(granted.envelope.id).toBe(outbox.id);

    expect((await t.rest('DELETE', `/ob/consents/${consentId}`, { headers: bearer(tpp.tppAccessToken) })).status).toBe(
      204,
    );
    const revoked = await eventOf(endpoint, 'consent.revoked', consentId);
    expect(revoked.envelope.data).toMatchObject({ consent_id: consentId, status: 'REVOKED', revoked_by: 'tpp' });
    expectSignedBy(tpp.webhookSecret, revoked);

    const expiring = await grantedConsent(tpp);
    await t.platform.db
      .knex('open_banking.consents')
      .where({ id: expiring })
      .update({ expires_at: new Date(Date.now() - 1_000) });
    const expired = await eventOf(endpoint, 'consent.expired', expiring);
    expect(expired.envelope.data).toMatchObject({ consent_id: expiring, status: 'EXPIRED' });
    expectSignedBy(tpp.webhookSecret, expired);

    const listed = await settled(tpp.tppAccessToken, granted.envelope.id, 'DELIVERED');
    expect(listed).toEqual({
      delivery_id: expect.stringMatching(/^whd_/),
      endpoint_id: `we_${tpp.tppId}`,
      livemode: true,
      event_id: granted.envelope.id,
      event: 'consent.granted',
      url: endpoint.url,
      status: 'DELIVERED',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    await settled(tpp.tppAccessToken, expired.envelope.id, 'DELIVERED');
    const log = await deliveries(tpp.tppAccessToken);
    expect(log.map((d) => d.event).sort()).toEqual([
      'consent.expired',
      'consent.granted',
      'consent.granted',
      'consent.revoked',
    ]);
    // The same log over GraphQL with the TPP token, attempts included.
    const graph = await t.execute(DELIVERIES, {}, bearer(tpp.tppAccessToken));
    expect(graph.webhookDeliveries.edges.find((e) => e.node.id === listed.delivery_id)?.node).toMatchObject({
      event: 'consent.granted',
      status: 'DELIVERED',
      history: [{ number: 1, statusCode: 200 }],
    });
  });

  it('a failing receiver gets retries, then FAILED; the TPP rotates its secret and retries by hand, signed with the new secret only', async () => {
    const endpoint = await receiver();
    endpoint.answer(() => 503);
    const tpp = await tppWith(endpoint.url);
    const consentId = await grantedConsent(tpp);
    const eventId = (await eventOf(endpoint, 'consent.granted', consentId)).envelope.id;
    const failed = await settled(tpp.tppAccessToken, eventId, 'FAILED');
    expect(failed).toMatchObject({ attempts: 3, last_status_code: 503, next_attempt_at: null });
    expect(endpoint.received.filter((w) => w.envelope.id === eventId)).toHaveLength(3);

    // Another TPP cannot rotate this one's secret: the answer for an unknown TPP.
    const other = await tppWith(null);
    const refused = await t.rest('POST', `/ob/tpps/${tpp.tppId}/rotate-webhook-secret`, {
      headers: bearer(other.tppAccessToken),
    });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'TPP_NOT_FOUND']);

    const rotated = await t.rest('POST', `/ob/tpps/${tpp.tppId}/rotate-webhook-secret`, {
      headers: bearer(tpp.tppAccessToken),
    });
    expect(rotated.status).toBe(200);
    expect(
      responseSchemaOf('POST', '/ob/tpps/{id}/rotate-webhook-secret').safeParse(rotated.body).error,
    ).toBeUndefined();
    const newSecret = rotated.body.webhook_secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(tpp.webhookSecret);

    endpoint.answer(() => 200);
    const before = endpoint.received.length;
    const retried = await t.rest('POST', `/webhooks/deliveries/${failed.delivery_id}/retry`, {
      headers: bearer(tpp.tppAccessToken),
    });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ delivery_id: failed.delivery_id, status: 'PENDING' });
    const again = await endpoint.waitFor(
      (w) => endpoint.received.indexOf(w) >= before && w.envelope.id === eventId,
      'the manual retry',
    );
    expectSignedBy(newSecret, again);
    expect(again.headers['x-service-signature']).not.toBe(serviceSignature(tpp.webhookSecret, again.body));
    expect(standardWebhooksValid(tpp.webhookSecret, again)).toBe(false);
    await settled(tpp.tppAccessToken, eventId, 'DELIVERED');

    // The operator may rotate too.
    const byAdmin = await t.rest('POST', `/ob/tpps/${tpp.tppId}/rotate-webhook-secret`, {
      headers: { 'x-service-admin-key': t.adminKey },
    });
    expect(byAdmin.status).toBe(200);
  });

  it("a TPP never sees or retries another TPP's or a merchant's deliveries, nor they its own", async () => {
    const endpoint = await receiver();
    const tpp = await tppWith(endpoint.url);
    const consentId = await grantedConsent(tpp);
    const eventId = (await eventOf(endpoint, 'consent.granted', consentId)).envelope.id;
    const own = await settled(tpp.tppAccessToken, eventId, 'DELIVERED');

    const merchantEndpoint = await receiver();
    const merchant = await t.seed.createMerchant({ webhook_url: merchantEndpoint.url });
    const sessionId = newId('paymentSession');
    // Shaped as the session writer's payment.expired (the receiver checks it against the OpenAPI document).
    const merchantEvent = {
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
    await t.platform.bus.publish(merchantEvent);
    await merchantEndpoint.waitFor((w) => w.envelope.id === merchantEvent.id);
    const merchantDelivery = await settled(merchant.apiKey, merchantEvent.id, 'DELIVERED');

    const other = await tppWith(null);
    expect(await deliveries(other.tppAccessToken)).toEqual([]);
    expect((await deliveries(merchant.apiKey)).map((d) => d.event_id)).toEqual([merchantEvent.id]);
    expect((await deliveries(tpp.tppAccessToken)).map((d) => d.event_id)).toEqual([eventId]);
    for (const [token, id] of [
      [other.tppAccessToken, own.delivery_id],
      [merchant.apiKey, own.delivery_id],
      [tpp.tppAccessToken, merchantDelivery.delivery_id],
    ] as const) {
      const refused = await t.rest('POST', `/webhooks/deliveries/${id}/retry`, { headers: bearer(token) });
      expect([refused.status, refused.body.error.code]).toEqual([404, 'WEBHOOK_DELIVERY_NOT_FOUND']);
    }
    expect((await t.rest('GET', '/webhooks/deliveries')).status).toBe(401);
    // The TPP's webhook target (sealed secret) is for the dispatcher only, never for a TPP, a merchant or anonymous callers.
    for (const headers of [bearer(tpp.tppAccessToken), bearer(merchant.apiKey), {}]) {
      const answer = await t.executeExpectingErrors(TARGET, { tppId: tpp.tppId }, headers);
      expect(['FORBIDDEN', 'UNAUTHORIZED']).toContain(answer.errors[0]!.extensions?.code);
    }
  });

  it('a changed webhook_url (PATCH by the TPP) takes the next event; payment_order.* events go to the TPP too', async () => {
    const first = await receiver();
    const second = await receiver();
    const tpp = await tppWith(first.url);
    const patched = await t.rest('PATCH', `/ob/tpps/${tpp.tppId}`, {
      headers: bearer(tpp.tppAccessToken),
      body: { webhook_url: second.url },
    });
    expect(patched.status).toBe(200);
    expect(responseSchemaOf('PATCH', '/ob/tpps/{id}').safeParse(patched.body).error).toBeUndefined();
    expect(patched.body).toMatchObject({ tpp_id: tpp.tppId, webhook_url: second.url });
    const stranger = await tppWith(null);
    expect(
      (
        await t.rest('PATCH', `/ob/tpps/${tpp.tppId}`, {
          headers: bearer(stranger.tppAccessToken),
          body: { webhook_url: null },
        })
      ).status,
    ).toBe(404);

    // The payment-order events land with the payment orders themselves; their shape on the bus is fixed: audience = TPP id.
    const order = {
      id: newId('event'),
      kind: 'payment_order.completed',
      aggregateType: 'payment_order',
      aggregateId: newId('paymentOrder'),
      audience: tpp.tppId,
      createdAt: new Date().toISOString(),
      // Shaped as the payment order writer's event data (checked against the OpenAPI document by the receiver).
      data: {
        payment_order_id: 'po_synthetic',
        consent_id: 'con_synthetic',
        livemode: true,
        status: 'COMPLETED',
        amount: 2500,
        currency: 'LYD',
        source_account_id: 'acc_synthetic',
        destination: { type: 'iban', value: 'LY83002048000020100120361' },
      },
    };
    await t.platform.bus.publish(order);
    const delivered = await second.waitFor((w) => w.envelope.id === order.id, 'payment_order.completed');
    expect(delivered.envelope).toEqual({
      id: order.id,
      event: 'payment_order.completed',
      created_at: order.createdAt,
      livemode: true,
      data: order.data,
    });
    expectSignedBy(tpp.webhookSecret, delivered);
    expect(first.received).toEqual([]);
    expect(await settled(tpp.tppAccessToken, order.id, 'DELIVERED')).toMatchObject({
      event: 'payment_order.completed',
      url: second.url,
    });

    // No webhook URL: no delivery at all.
    const silent = await tppWith(null);
    const unheard = { ...order, id: newId('event'), audience: silent.tppId };
    await t.platform.bus.publish(unheard);
    const witness = { ...order, id: newId('event') };
    await t.platform.bus.publish(witness);
    await second.waitFor((w) => w.envelope.id === witness.id);
    expect(await t.platform.db.knex('payments.webhook_deliveries').where({ event_id: unheard.id })).toEqual([]);
  });
});
