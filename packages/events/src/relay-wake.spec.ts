import { knex as makeKnex, type Knex } from '@mikro-orm/knex';
import { Migration, openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { PlatformEvent } from './event';
import { createMemoryBus } from './memory-bus';
import {
  outboxAggregateSequenceSql,
  outboxMigrationSql,
  outboxNotifySql,
  outboxRelayLeaseSql,
  OutboxEvent,
} from './outbox.entity';
import { startOutboxRelay, type OutboxRelay } from './relay';
import { eventually } from './testing';

const SCHEMA = 'relaywake';

class CreateOutbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      ...outboxMigrationSql(SCHEMA),
      ...outboxAggregateSequenceSql(SCHEMA),
      ...outboxRelayLeaseSql(SCHEMA),
      ...outboxNotifySql(SCHEMA),
    ])
      this.addSql(sql);
  }
}

/**
 * Issue 53: the relay sleeps when idle. A row another instance commits wakes it by NOTIFY (the
 * outbox's trigger), long before its own poll; a row whose notification was lost is still taken
 * by the look that rides on the lease renewal (the process's heartbeat), and after the listening
 * connection dropped, by the look every job gets once it listens again.
 */
describe('outbox relay woken by NOTIFY', () => {
  let db: Database;
  let orm: ServiceOrm;
  /** Another instance's connection (PostgreSQL); on PGlite, the one backend of this process is everyone's. */
  let other: Knex | undefined;
  const relays: OutboxRelay[] = [];

  const insertRow = (writer: Knex, aggregateId: string) =>
    writer.raw(
      `insert into "${SCHEMA}"."outbox" (id, kind, aggregate_type, aggregate_id, audience, data, created_at)
       values (?, 'payment.completed', 'payment_session', ?, 'mer_1', '{}', now())`,
      [`evt_${aggregateId}`, aggregateId],
    );
  /** Another instance's write: PostgreSQL NOTIFY reaches this process's listener, not the writer's own. */
  const writer = () => other ?? db.knex;

  const relayWithSeen = async (options: { pollIntervalMs: number; leaseMs: number }) => {
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

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await openServiceOrm(db, {
      schema: SCHEMA,
      entities: [OutboxEvent],
      migrations: [{ name: 'CreateOutbox', class: CreateOutbox }],
    });
    if (!db.embedded)
      other = makeKnex({ client: 'pg', connection: { connectionString: db.url }, pool: { min: 0, max: 1 } });
  });
  afterEach(async () => {
    for (const r of relays.splice(0)) await r.stop();
    await db.knex(`${SCHEMA}.outbox_relay_lease`).delete();
  });
  afterAll(async () => {
    await other?.destroy();
    await orm.close();
    await db.close();
  });

  it('a row committed elsewhere is published within moments, its relay polling every 30 s', async () => {
    // Lease 90 s: the renewal (and the look riding on it) comes every 30 s.
    const seen = await relayWithSeen({ pollIntervalMs: 30_000, leaseMs: 90_000 });
    const started = Date.now();
    await insertRow(writer(), 'ops_notified');
    await eventually(() => seen.length === 1, 'the notified row', 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(seen[0]).toMatchObject({ aggregateId: 'ops_notified', sequence: 1 });
  });

  it('a row whose notification was lost is published by the look on the lease renewal', async () => {
    const seen = await relayWithSeen({ pollIntervalMs: 30_000, leaseMs: 1_500 });
    // No NOTIFY at all: the trigger is off for this write.
    await db.knex.transaction(async (trx) => {
      await trx.raw(`alter table "${SCHEMA}"."outbox" disable trigger "outbox_notify"`);
      await insertRow(trx, 'ops_lost');
      await trx.raw(`alter table "${SCHEMA}"."outbox" enable trigger "outbox_notify"`);
    });
    await eventually(() => seen.length === 1, 'the row nobody was told of', 3_000);
    expect(seen[0]).toMatchObject({ aggregateId: 'ops_lost' });
  });

  it('PostgreSQL: the listener comes back after its connection is killed, and looks once for what it missed', async () => {
    if (db.embedded) return; // PGlite listens on the pool's one backend: there is no listening connection to kill
    const seen = await relayWithSeen({ pollIntervalMs: 30_000, leaseMs: 90_000 });
    const listening = () =>
      db.knex.raw(
        `select pid from pg_stat_activity where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`,
      );
    await eventually(async () => (await listening()).rows.length > 0, 'a listener');
    await writer().raw(`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`);
    // Written while nobody listens: its NOTIFY is lost.
    await insertRow(writer(), 'ops_while_down');
    await eventually(() => seen.length === 1, 'the row written while the listener was down', 3_000);
    // And listening again: the next one is notified.
    await eventually(async () => (await listening()).rows.length > 0, 'the listener back');
    await insertRow(writer(), 'ops_after');
    await eventually(() => seen.length === 2, 'the row after the reconnect', 2_000);
  });
});
