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
 * Issue 53: the delivery worker sleeps when idle. A delivery another instance took in without
 * claiming it (no room there) is claimed here once the check on the process's heartbeat sees it
 * due; taking it in sends no NOTIFY (PostgreSQL serializes the commits of transactions that notify).
 */
describe('webhook delivery worker woken by its heartbeat check', () => {
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

  it('a delivery another instance took in unclaimed is claimed once the heartbeat check sees it due', async () => {
    await start(500);
    const row = event();
    const intake = await deliveries.intake(other ?? db.knex, 'tpp', row, null);
    expect(intake?.deliveries).toMatchObject([{ lease_token: null, held: false }]);
    await until(() => seen.includes(row.eventId), 3_000, 'the delivery taken in elsewhere');
  });

  it('PostgreSQL: taking in an unclaimed delivery sends no NOTIFY', async () => {
    if (!other) return; // PGlite has no other connection to listen on
    const client = other.client as unknown as {
      acquireRawConnection(): Promise<{
        query(sql: string): Promise<unknown>;
        on(event: 'notification', listener: (message: unknown) => void): void;
      }>;
      destroyRawConnection(connection: unknown): Promise<void>;
    };
    const listener = await client.acquireRawConnection();
    const heard: unknown[] = [];
    listener.on('notification', (message) => heard.push(message));
    await listener.query('listen "gateway_webhook_deliveries"');
    const intake = await deliveries.intake(db.knex, 'tpp', event(), null);
    expect(intake?.deliveries).toMatchObject([{ lease_token: null }]);
    await listener.query('select 1'); // notifications sent before this answer arrive before it
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual([]);
    await client.destroyRawConnection(listener);
  });
});
