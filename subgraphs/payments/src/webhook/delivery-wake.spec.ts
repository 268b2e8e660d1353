import { createServer, type Server } from 'node:http';
import { knex as makeKnex, type Knex } from '@mikro-orm/knex';
import type { Database } from '@gateway/db';
import { createMemoryBus } from '@gateway/events';
import type { ServiceClient } from '@gateway/federation';
import { createLogger, newId, newSecret, sealSecret } from '@gateway/kernel';
import { deliveries, type NewEvent } from './delivery.repository';
import { startWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher';
import { openWebhookDatabase } from '../webhook-test-database';

/**
 * Issue 53: the delivery worker sleeps when idle. A delivery another instance inserted without
 * taking it (no room there) wakes it by NOTIFY (the deliveries' trigger), long before its own
 * poll; one whose notification was lost is claimed once the check on the process's heartbeat
 * sees it due.
 */
describe('webhook delivery worker woken by NOTIFY', () => {
  const platformSecret = 'platform-secret-for-this-spec-0123456789';
  let db: Database;
  let closeDatabase: () => Promise<void>;
  /** Another instance's connection (PostgreSQL); on PGlite, the one backend of this process is everyone's. */
  let other: Knex | undefined;
  let receiver: Server;
  let url: string;
  const seen: string[] = [];
  const dispatchers: WebhookDispatcher[] = [];

  const call = (async () => ({
    tppWebhookTarget: { url, sealedSecret: sealSecret(newSecret('whsec_'), platformSecret) },
  })) as unknown as ServiceClient;

  const start = async (pollIntervalMs: number) => {
    const dispatcher = await startWebhookDispatcher({
      knex: db.knex,
      bus: createMemoryBus(),
      platformSecret,
      call,
      production: false,
      privateTargets: true,
      logger: createLogger('delivery-wake-spec', 'silent'),
      retryScheduleSeconds: [60],
      attemptTimeoutMs: 5_000,
      leaseMs: 3_000,
      pollIntervalMs,
    });
    dispatchers.push(dispatcher);
    // Its first claim (at start) is over before the test writes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return dispatcher;
  };

  /** An event for a TPP inserted as an instance with no room inserts it: PENDING, nobody's claim. */
  const event = (): NewEvent => {
    const id = newId('event');
    return {
      eventId: id,
      eventKind: 'payment_order.completed',
      audienceId: newId('tpp'),
      aggregateId: newId('paymentOrder'),
      sequence: null,
      livemode: true,
      payload: JSON.stringify({ id }),
      now: new Date(),
      deliveryIds: [newId('delivery'), newId('delivery')],
      primaryUrlSet: true,
    };
  };

  const until = async (condition: () => boolean, ms: number, what: string) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    ({ db, close: closeDatabase } = await openWebhookDatabase());
    if (!db.embedded)
      other = makeKnex({ client: 'pg', connection: { connectionString: db.url }, pool: { min: 0, max: 1 } });
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push((JSON.parse(body) as { id: string }).id);
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  });
  afterEach(async () => {
    for (const dispatcher of dispatchers.splice(0)) await dispatcher.stop();
  });
  afterAll(async () => {
    receiver.close();
    await other?.destroy();
    await closeDatabase();
  });

  it('a delivery inserted elsewhere unclaimed is sent within moments, the worker looking every 30 s', async () => {
    await start(30_000);
    const row = event();
    const intake = await deliveries.intake(other ?? db.knex, 'tpp', row, null);
    expect(intake?.deliveries).toMatchObject([{ lease_token: null, held: false }]);
    await until(() => seen.includes(row.eventId), 2_000, 'the notified delivery');
  });

  it('a delivery whose notification was lost is claimed once the heartbeat check sees it due', async () => {
    await start(500);
    const row = event();
    await db.knex.transaction(async (trx) => {
      await trx.raw(`alter table payments.webhook_deliveries disable trigger "webhook_deliveries_notify"`);
      await deliveries.intake(trx, 'tpp', row, null);
      await trx.raw(`alter table payments.webhook_deliveries enable trigger "webhook_deliveries_notify"`);
    });
    await until(() => seen.includes(row.eventId), 3_000, 'the delivery nobody was told of');
  });
});
