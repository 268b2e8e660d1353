import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { startOutageProxy, testAmqpUrl, testNamespace } from '@gateway/events/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  sessionReaches,
  startPaymentBank,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

// CI sets AMQP_URL (testAmqpUrl fails there without it); elsewhere these run when a broker is given.
const amqpUrl = testAmqpUrl();
const DEAD_BROKER = 'amqp://guest:guest@127.0.0.1:1';

/** RabbitMQ away: payments still commit, events wait in the outbox and flow once the broker is back. */
(amqpUrl ? describe : describe.skip)('broker outage', () => {
  let receiver: TestWebhookReceiver;
  beforeEach(async () => {
    receiver = await startTestReceiver();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  const payOnce = async (t: TestPlatform, bank: PaymentBank, apiKey: string) => {
    const payee = await bank.customer({ balance: 0 });
    const payer = await bank.customer();
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: { amount: 990, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect(created.status).toBe(201);
    const paid = await t.rest('POST', `/pay/${created.body.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(paid.status).toBe(200);
    await sessionReaches(t, apiKey, created.body.session_id, 'COMPLETED');
    return created.body.session_id as string;
  };
  const outboxOf = (t: TestPlatform, sessionId: string) =>
    t.platform.db
      .knex('payments.outbox')
      .where({ aggregate_id: sessionId })
      .orderBy('sequence')
      .select('id', 'kind', 'published_at') as Promise<Array<{ id: string; kind: string; published_at: Date | null }>>;
  const receivedIds = (sessionId: string) =>
    receiver.received.filter((w) => w.envelope.data.session_id === sessionId).map((w) => w.envelope.id);

  it('with the broker unreachable a payment completes and its events wait; a platform on a live broker delivers them with their ids', async () => {
    const db: Database = await openTestDatabase();
    const namespace = testNamespace();
    // A restart keeps the platform secret (sealed webhook secrets are opened with it).
    const restartable = { PLATFORM_SECRET: 'outage-test-platform-secret-0123456789' };
    let t = await startTestPlatform({
      db,
      amqpUrl: DEAD_BROKER,
      busNamespace: namespace,
      paymentsEngine: FAST_ENGINE,
      env: restartable,
    });
    try {
      const bank = await startPaymentBank(t);
      const merchant = await t.seed.createMerchant({ webhook_url: receiver.url });
      const sessionId = await payOnce(t, bank, merchant.apiKey);
      const waiting = await outboxOf(t, sessionId);
      expect(waiting.map((row) => [row.kind, row.published_at])).toEqual([
        ['payment.initiated', null],
        ['payment.processing', null],
        ['payment.completed', null],
      ]);
      expect(receiver.received).toEqual([]);
      await bank.sandbox.stop();
      await t.stop();

      t = await startTestPlatform({
        db,
        amqpUrl,
        busNamespace: namespace,
        paymentsEngine: FAST_ENGINE,
        env: restartable,
      });
      await eventually(async () => (receivedIds(sessionId).length >= 3 ? true : undefined), 'the waiting events');
      expect([...new Set(receivedIds(sessionId))].sort()).toEqual(waiting.map((row) => row.id).sort());
      await eventually(
        async () => ((await outboxOf(t, sessionId)).every((row) => row.published_at) ? true : undefined),
        'the outbox to be stamped',
      );
    } finally {
      await t.stop();
      await db.close();
    }
  });

  it('when the broker link drops the platform reconnects by itself and the events written meanwhile flow', async () => {
    const proxy = await startOutageProxy(amqpUrl!);
    const t = await startTestPlatform({ amqpUrl: proxy.url, paymentsEngine: FAST_ENGINE });
    try {
      const bank = await startPaymentBank(t);
      const merchant = await t.seed.createMerchant({ webhook_url: receiver.url });
      const before = await payOnce(t, bank, merchant.apiKey);
      await eventually(async () => (receivedIds(before).length >= 3 ? true : undefined), 'events before the outage');

      await proxy.cut();
      const during = await payOnce(t, bank, merchant.apiKey);
      expect((await outboxOf(t, during)).some((row) => row.published_at === null)).toBe(true);

      await proxy.restore();
      await eventually(
        async () => (receivedIds(during).length >= 3 ? true : undefined),
        'events written during the outage',
        40_000,
      );
      expect([...new Set(receivedIds(during))].sort()).toEqual((await outboxOf(t, during)).map((row) => row.id).sort());
      await bank.sandbox.stop();
    } finally {
      await t.stop();
      await proxy.close();
    }
  });
});
