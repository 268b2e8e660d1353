import { createServer } from 'node:net';
import { bearer, eventually, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { gql } from '../support/graphql';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

const REFUSED = 'target refused: not a public address';

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
 * Webhook egress without WEBHOOK_PRIVATE_TARGETS (the default outside `npm start` and the tests):
 * a merchant's session webhook_url on this machine is never called, and the delivery log tells
 * a listening port from a closed one in no way (issue 28: the log read back 200/404/ECONNREFUSED).
 */
describe('webhook egress: public addresses only', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let receiver: TestWebhookReceiver;

  beforeAll(async () => {
    t = await startTestPlatform({
      paymentsEngine: FAST_ENGINE,
      env: { WEBHOOK_PRIVATE_TARGETS: '0', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' },
    });
    bank = await startPaymentBank(t);
    receiver = await startTestReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
    await bank.sandbox.stop();
    await t.stop();
  });

  it("a session's webhook_url on 127.0.0.1 is refused: the receiver gets nothing, the delivery log says refused, whatever listens there", async () => {
    const merchant = await t.seed.createMerchant({});
    const payee = await bank.customer({ balance: 0 });
    const listening = new URL(receiver.url);
    const targets = [
      receiver.url,
      `http://127.0.0.1:${await closedPort()}/hooks`,
      `http://localhost:${listening.port}${listening.pathname}`,
    ];
    const sessions: string[] = [];
    for (const webhookUrl of targets) {
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: {
          amount: 1500,
          currency: 'LYD',
          destination: { type: 'alias', value: payee.alias },
          reference: 'egress',
          webhook_url: webhookUrl,
        },
      });
      expect(created.status).toBe(201);
      sessions.push(created.body.session_id);
    }

    // payment.initiated of each session, every attempt spent (three, 0.2 s apart).
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
