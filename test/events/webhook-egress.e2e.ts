import { createServer } from 'node:net';
import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { newSecret } from '@gateway/kernel';
import { bearer, eventually, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { gql } from '../support/graphql';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

const REFUSED = 'target refused: not a public address';
const NOT_PUBLIC = 'must point to a public address (not loopback, private, link-local or reserved)';

const DELIVERY = gql<
  {
    webhookDelivery: {
      status: string;
      lastStatusCode: number | null;
      lastError: string | null;
      history: Array<{ statusCode: number | null; error: string | null }>;
    };
  },
  { id: string }
>(`query($id: ID!) { webhookDelivery(id: $id) { status lastStatusCode lastError history { statusCode error } } }`);

/** A loopback port nobody listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Webhook egress without PRIVATE_TARGETS (the default outside `npm start`, the tests and the
 * cluster): a target on this machine is never called, and nothing the gateway answers tells a
 * listening port from a closed one (issue 28: the delivery log read back 200/404/ECONNREFUSED).
 * A URL naming such a target is refused at registration (the egress check every URL the gateway
 * calls goes through, issue 46); one registered while PRIVATE_TARGETS was on is refused at every
 * delivery, in one wording.
 */
describe('webhook egress: public addresses only', () => {
  let db: Database;
  let receiver: TestWebhookReceiver;
  /** Both platforms on the database open its sealed keys: one platform secret. */
  const platformSecret = newSecret('pls_');
  let targets: string[];
  let merchant: { apiKey: string };
  let payee: { alias: string };
  let bank: PaymentBank;
  let t: TestPlatform;

  beforeAll(async () => {
    db = await openTestDatabase();
    receiver = await startTestReceiver();
    const listening = new URL(receiver.url);
    targets = [
      receiver.url,
      `http://127.0.0.1:${await closedPort()}/hooks`,
      `http://localhost:${listening.port}${listening.pathname}`,
    ];
    // First with PRIVATE_TARGETS on (as the tests run): a bank on loopback, and endpoints at the three targets.
    const before = await startTestPlatform({ db, env: { PLATFORM_SECRET: platformSecret } });
    try {
      bank = await startPaymentBank(before);
      merchant = await before.seed.createMerchant({});
      payee = await bank.customer({ balance: 0 });
      for (const url of targets) {
        const created = await before.rest('POST', '/webhooks/endpoints', {
          headers: bearer(merchant.apiKey),
          body: { url },
        });
        expect(created.status).toBe(201);
      }
    } finally {
      await before.stop();
    }
    // Then the same data with it off.
    t = await startTestPlatform({
      db,
      paymentsEngine: FAST_ENGINE,
      env: { PLATFORM_SECRET: platformSecret, PRIVATE_TARGETS: '0', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await bank?.sandbox.stop();
    await receiver.stop();
    await db.close();
  });

  it("a session's webhook_url or a new endpoint on this machine is refused at registration, in one wording whatever listens there", async () => {
    for (const url of targets) {
      const session = await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: {
          amount: 1500,
          currency: 'LYD',
          destination: { type: 'alias', value: payee.alias },
          reference: 'egress',
          webhook_url: url,
        },
      });
      expect([session.status, session.body.error.code, session.body.error.detail]).toEqual([
        400,
        'VALIDATION_ERROR',
        `webhook_url: ${NOT_PUBLIC}`,
      ]);
      const endpoint = await t.rest('POST', '/webhooks/endpoints', { headers: bearer(merchant.apiKey), body: { url } });
      expect([endpoint.status, endpoint.body.error.detail]).toEqual([400, `url: ${NOT_PUBLIC}`]);
    }
    expect(receiver.received).toEqual([]);
  });

  it('endpoints registered while PRIVATE_TARGETS was on get nothing: the delivery log says refused, whatever listens there', async () => {
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 1500, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: 'egress' },
    });
    expect(created.status).toBe(201);

    // payment.initiated at each endpoint, every attempt spent (three, 0.2 s apart).
    const log = await eventually(async () => {
      const answer = await t.rest('GET', '/webhooks/deliveries?limit=100', { headers: bearer(merchant.apiKey) });
      const deliveries = answer.body.deliveries as Array<Record<string, any>>;
      return deliveries.length === targets.length && deliveries.every((delivery) => delivery.status === 'FAILED')
        ? deliveries
        : undefined;
    }, 'every delivery FAILED');

    expect(receiver.received).toEqual([]);
    expect(
      log.map((delivery) => [delivery.url, delivery.attempts, delivery.last_status_code, delivery.last_error]).sort(),
    ).toEqual(targets.map((url) => [url, 3, null, REFUSED]).sort());
    for (const delivery of log) {
      const { webhookDelivery } = await t.execute(DELIVERY, { id: delivery.delivery_id }, bearer(merchant.apiKey));
      expect(webhookDelivery).toEqual({
        status: 'FAILED',
        lastStatusCode: null,
        lastError: REFUSED,
        history: Array(3).fill({ statusCode: null, error: REFUSED }),
      });
    }
  });
});
