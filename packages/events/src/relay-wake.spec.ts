import { knex as makeKnex, type Knex } from '@mikro-orm/knex';
import { Migration, openDatabase, openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { PlatformEvent } from './event';
import { createMemoryBus } from './memory-bus';
import {
  outboxAggregateSequenceSql,
  outboxChannel,
  outboxMigrationSql,
  outboxNotifyDropSql,
  outboxNotifySql,
  outboxRelayLeaseSql,
  OutboxEvent,
} from './outbox.entity';
import { startOutboxRelay, type OutboxRelay } from './relay';
import { eventually } from './testing';

const SCHEMA = 'relaywake';

/** The outbox as the subgraphs' migrations leave it: the NOTIFY trigger added on 3 January 2027, dropped on 10 January. */
class CreateOutbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      ...outboxMigrationSql(SCHEMA),
      ...outboxAggregateSequenceSql(SCHEMA),
      ...outboxRelayLeaseSql(SCHEMA),
      ...outboxNotifySql(SCHEMA),
      ...outboxNotifyDropSql(SCHEMA),
    ])
      this.addSql(sql);
  }
}

/**
 * Issue 53: the relay sleeps when idle. A row an instance without the lease commits wakes the
 * holder by the NOTIFY that instance sends after its commit, long before the holder's own poll;
 * a row nobody told it of is still taken by the look that rides on the lease renewal (the
 * process's heartbeat), and after the listening connection dropped, by the look every job gets
 * once it listens again. The writing transaction itself sends no NOTIFY: PostgreSQL serializes
 * the commits of transactions that notify.
 */
describe('outbox relay woken by NOTIFY', () => {
  let db: Database;
  let orm: ServiceOrm;
  /** Another instance's database handle and ORM (PostgreSQL); on PGlite, the one backend of this process is everyone's. */
  let otherDb: Database | undefined;
  let otherOrm: ServiceOrm;
  /** Another instance's plain connection (PostgreSQL): a writer that tells nobody. */
  let other: Knex | undefined;
  const relays: OutboxRelay[] = [];

  const insertRow = (writer: Knex, aggregateId: string) =>
    writer.raw(
      `insert into "${SCHEMA}"."outbox" (id, kind, aggregate_type, aggregate_id, audience, data, created_at)
       values (?, 'payment.completed', 'payment_session', ?, 'mer_1', '{}', now())`,
      [`evt_${aggregateId}`, aggregateId],
    );
  const writer = () => other ?? db.knex;

  /** The instance holding the lease: what it publishes. */
  const holderWithSeen = async (options: { pollIntervalMs: number; leaseMs: number }) => {
    const bus = createMemoryBus();
    const seen: PlatformEvent[] = [];
    await bus.subscribe('payment.#', async (event) => void seen.push(event));
    const relay = startOutboxRelay({ orm, bus, ...options });
    relays.push(relay);
    // Holding the lease (its first pass claims it) before the write.
    await eventually(
      async () => (await db.knex(`${SCHEMA}.outbox_relay_lease`).where('lease_until', '>', new Date())).length === 1,
      'lease',
    );
    return seen;
  };

  /** Another instance's relay, which finds the lease held: its writes are the holder's to publish. */
  const follower = async () => {
    const relay = startOutboxRelay({ orm: otherOrm, bus: createMemoryBus(), pollIntervalMs: 30_000, leaseMs: 90_000 });
    relays.push(relay);
    await new Promise((resolve) => setTimeout(resolve, 200)); // its first ask for the lease, refused
    return relay;
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await openServiceOrm(db, {
      schema: SCHEMA,
      entities: [OutboxEvent],
      migrations: [{ name: 'CreateOutbox', class: CreateOutbox }],
    });
    if (!db.embedded) {
      other = makeKnex({ client: 'pg', connection: { connectionString: db.url }, pool: { min: 0, max: 1 } });
      otherDb = await openDatabase({ url: db.url, poolSize: 2 });
    }
    otherOrm = await openServiceOrm(otherDb ?? db, {
      schema: SCHEMA,
      entities: [OutboxEvent],
      migrations: [{ name: 'CreateOutbox', class: CreateOutbox }],
    });
  });
  afterEach(async () => {
    for (const r of relays.splice(0)) await r.stop();
    await db.knex(`${SCHEMA}.outbox_relay_lease`).delete();
  });
  afterAll(async () => {
    await other?.destroy();
    await otherOrm.close();
    await otherDb?.close();
    await orm.close();
    await db.close();
  });

  it('a row committed by an instance without the lease is published within moments, the holder polling every 30 s', async () => {
    // Lease 90 s: the renewal (and the look riding on it) comes every 30 s.
    const seen = await holderWithSeen({ pollIntervalMs: 30_000, leaseMs: 90_000 });
    const writing = await follower();
    const started = Date.now();
    await insertRow(otherDb?.knex ?? db.knex, 'ops_notified');
    writing.wake(); // as the writer's commit does (the ORM's afterTransactionCommit, wakeOutboxRelay)
    await eventually(() => seen.length === 1, 'the notified row', 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(seen[0]).toMatchObject({ aggregateId: 'ops_notified', sequence: 1 });
  });

  it('PostgreSQL: a statement adding outbox rows sends no NOTIFY of its own', async () => {
    if (!other) return; // PGlite has no other connection to listen on
    const listener = await (
      other.client as unknown as {
        acquireRawConnection(): Promise<{
          query(sql: string): Promise<unknown>;
          on(event: 'notification', listener: (message: unknown) => void): void;
        }>;
      }
    ).acquireRawConnection();
    const heard: unknown[] = [];
    listener.on('notification', (message) => heard.push(message));
    await listener.query(`listen "${outboxChannel(SCHEMA)}"`);
    await insertRow(db.knex, 'ops_silent');
    await listener.query('select 1'); // notifications sent before this answer arrive before it
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual([]);
    await db.knex.raw(`delete from "${SCHEMA}"."outbox" where id = 'evt_ops_silent'`); // nobody's to publish
    await (other.client as unknown as { destroyRawConnection(c: unknown): Promise<void> }).destroyRawConnection(
      listener,
    );
  });

  it('a row nobody told the holder of is published by the look on the lease renewal', async () => {
    const seen = await holderWithSeen({ pollIntervalMs: 30_000, leaseMs: 1_500 });
    await insertRow(writer(), 'ops_untold');
    await eventually(() => seen.length === 1, 'the row nobody was told of', 3_000);
    expect(seen[0]).toMatchObject({ aggregateId: 'ops_untold' });
  });

  it('PostgreSQL: the listener comes back after its connection is killed, and looks once for what it missed', async () => {
    if (db.embedded) return; // PGlite listens on the pool's one backend: there is no listening connection to kill
    const seen = await holderWithSeen({ pollIntervalMs: 30_000, leaseMs: 90_000 });
    const writing = await follower();
    const listening = () =>
      db.knex.raw(
        `select pid from pg_stat_activity where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`,
      );
    await eventually(async () => (await listening()).rows.length > 0, 'a listener');
    await writer().raw(`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`);
    // Written while nobody listens: its NOTIFY is lost.
    await insertRow(otherDb!.knex, 'ops_while_down');
    writing.wake();
    await eventually(() => seen.length === 1, 'the row written while the listener was down', 3_000);
    // And listening again: the next one is notified.
    await eventually(async () => (await listening()).rows.length > 0, 'the listener back');
    await insertRow(otherDb!.knex, 'ops_after');
    writing.wake();
    await eventually(() => seen.length === 2, 'the row after the reconnect', 2_000);
  });
});
