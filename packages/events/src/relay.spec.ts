import { Migration, OneStatement, openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { EventBus } from './bus';
import { createMemoryBus } from './memory-bus';
import type { PlatformEvent } from './event';
import { recordEvent, recordFirstEventIn } from './event';
import { outboxAggregateSequenceSql, outboxMigrationSql, outboxRelayLeaseSql, OutboxEvent } from './outbox.entity';
import { createRabbitBus, BusUnavailableError } from './rabbit-bus';
import { publishFirstEvents, startOutboxRelay, type OutboxRelay } from './relay';
import { eventually, startOutageProxy, testAmqpUrl, testNamespace, testRabbitOptions } from './testing';

const SCHEMA = 'relaytest';

class CreateOutbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      ...outboxMigrationSql(SCHEMA),
      ...outboxAggregateSequenceSql(SCHEMA),
      ...outboxRelayLeaseSql(SCHEMA),
    ])
      this.addSql(sql);
  }
}

const amqpUrl = testAmqpUrl();

describe('outbox relay', () => {
  let db: Database;
  let orm: ServiceOrm;
  const relays: OutboxRelay[] = [];
  const buses: EventBus[] = [];

  const bus = (make: () => EventBus = createMemoryBus) => {
    const created = make();
    buses.push(created);
    return created;
  };
  const relay = (target: EventBus, options: { pollIntervalMs?: number; leaseMs?: number } = {}) => {
    const started = startOutboxRelay({ orm, bus: target, pollIntervalMs: 50, ...options });
    relays.push(started);
    return started;
  };
  /** A committed state change that wrote `count` events for one aggregate. */
  const commit = (aggregateId: string, kinds: string[]) =>
    orm.em
      .fork()
      .transactional(async (em) =>
        kinds.map(
          (kind, n) =>
            recordEvent(em, { kind, aggregateType: 'payment_session', aggregateId, audience: 'mer_1', data: { n } }).id,
        ),
      );
  /** A statement that creates an aggregate with its first events, handed to the relay as its writer does. */
  const writeFirst = async (aggregateId: string, kinds: string[]) => {
    const em = orm.em.fork();
    const statement = new OneStatement(em);
    const events = kinds.map((kind, n) =>
      recordFirstEventIn(
        statement,
        `first_${'abcdefgh'[n]}`,
        { kind, aggregateType: 'payment_session', aggregateId, audience: 'mer_1', data: { n } },
        new Date(),
      ),
    );
    await statement.run();
    publishFirstEvents(em, statement, events);
    return events.map((event) => event.row.id);
  };
  /** Resolves once a relay holds the schema's lease. */
  const leaseTaken = () =>
    eventually(
      async () => Number((await db.knex(`${SCHEMA}.outbox_relay_lease`).count({ n: '*' }))[0]!.n) === 1,
      'the lease taken',
    );
  /** Resolves once this relay holds the lease and its first pass (a take of nothing) is over. */
  const firstPassOver = async () => {
    let over = false;
    const seen = (_response: unknown, query: { sql: string }) =>
      void (query.sql.includes('row_number()') && (over = true));
    const knex = orm.em.getKnex();
    knex.on('query-response', seen);
    try {
      await eventually(() => over, 'the first pass');
    } finally {
      knex.off('query-response', seen);
    }
  };
  /** The relay's statements (each stamps what was confirmed) sent while `work` runs. */
  const relayStatementsDuring = async (work: () => Promise<void>) => {
    const statements: string[] = [];
    const knex = orm.em.getKnex();
    const count = (query: { sql: string }) =>
      void (query.sql.includes('jsonb_to_recordset') && statements.push(query.sql));
    knex.on('query', count);
    try {
      await work();
    } finally {
      knex.off('query', count);
    }
    return statements;
  };
  const unpublished = async () =>
    Number((await db.knex(`${SCHEMA}.outbox`).whereNull('published_at').count({ n: '*' }))[0]!.n);
  const collect = async (target: EventBus, pattern = 'payment.#') => {
    const seen: PlatformEvent[] = [];
    await target.subscribe(pattern, async (event) => void seen.push(event));
    return seen;
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await openServiceOrm(db, {
      schema: SCHEMA,
      entities: [OutboxEvent],
      migrations: [{ name: 'CreateOutbox', class: CreateOutbox }],
    });
  });
  afterEach(async () => {
    for (const r of relays.splice(0)) await r.stop();
    for (const b of buses.splice(0)) await b.close();
    await db.knex(`${SCHEMA}.outbox`).update({ published_at: new Date() }).whereNull('published_at');
    await db.knex(`${SCHEMA}.outbox_relay_lease`).delete();
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('publishes committed events in outbox order, with their ids, and stamps published_at', async () => {
    const target = bus();
    const seen = await collect(target);
    relay(target);
    const first = await commit('ops_a', ['payment.initiated', 'payment.processing']);
    const second = await commit('ops_b', ['payment.initiated']);
    const third = await commit('ops_a', ['payment.completed']);
    await eventually(() => seen.length === 4, 'four events');
    expect(seen.map((e) => e.id)).toEqual([...first, ...second, ...third]);
    // Each aggregate's events are numbered from 1, across passes and transactions.
    expect(seen.map((e) => `${e.aggregateId}:${e.sequence}`)).toEqual(['ops_a:1', 'ops_a:2', 'ops_b:1', 'ops_a:3']);
    expect(seen[3]).toMatchObject({
      kind: 'payment.completed',
      aggregateType: 'payment_session',
      aggregateId: 'ops_a',
      audience: 'mer_1',
      data: { n: 0 },
    });
    expect(seen[3]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    await eventually(async () => (await unpublished()) === 0, 'stamps');
  });

  it('never publishes the events of a rolled-back transaction', async () => {
    const target = bus();
    const seen = await collect(target);
    relay(target);
    await expect(
      orm.em.fork().transactional(async (em) => {
        recordEvent(em, {
          kind: 'payment.completed',
          aggregateType: 'payment_session',
          aggregateId: 'ops_rolled_back',
          data: {},
        });
        await em.flush();
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    const [witness] = await commit('ops_witness', ['payment.failed']);
    await eventually(() => seen.length >= 1, 'witness');
    expect(seen.map((e) => e.id)).toEqual([witness]);
  });

  it('while the bus refuses events the state change still commits; they flow, same ids, once it takes them again', async () => {
    const target = bus();
    const seen = await collect(target);
    let down = true;
    const flaky: EventBus = {
      ...target,
      publish: async (event) => (down ? Promise.reject(new BusUnavailableError('test outage')) : target.publish(event)),
    };
    relay(flaky);
    const ids = await commit('ops_outage', ['payment.initiated', 'payment.processing', 'payment.completed']);
    expect(await unpublished()).toBe(3);
    down = false;
    await eventually(() => seen.length === 3, 'events after the outage', 30_000);
    expect(seen.map((e) => e.id)).toEqual(ids);
  });

  it('two relays on one schema: every event goes out once, in order', async () => {
    const target = bus();
    const seen = await collect(target);
    relay(target);
    relay(target);
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1)
      ids.push(...(await commit(`ops_${i % 3}`, ['payment.processing', 'payment.completed'])));
    await eventually(() => seen.length >= 40, 'forty events');
    await eventually(async () => (await unpublished()) === 0, 'stamps');
    expect(seen.map((e) => e.id)).toEqual(ids);
  });

  it('one statement per pass: each take also stamps what the bus confirmed before it', async () => {
    const target = bus();
    const seen = await collect(target);
    // No poll and no renewal within the test: every relay statement is a take woken by a commit.
    relay(target, { pollIntervalMs: 60_000, leaseMs: 180_000 });
    await leaseTaken();
    const statements = await relayStatementsDuring(async () => {
      for (let i = 0; i < 5; i += 1) {
        await commit('ops_one', ['payment.processing']);
        await eventually(() => seen.length === i + 1, `event ${i + 1}`);
      }
    });
    expect(statements).toHaveLength(5);
    expect(seen.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
    // The last confirmed one is stamped by the next statement: here, the release at stop.
    expect(await unpublished()).toBe(1);
    for (const r of relays.splice(0)) await r.stop();
    expect(await unpublished()).toBe(0);
    const numbers = await db
      .knex(`${SCHEMA}.outbox`)
      .where({ aggregate_id: 'ops_one' })
      .orderBy('sequence')
      .pluck('aggregate_sequence');
    expect(numbers).toEqual([1, 2, 3, 4, 5]);
  });

  it('a wake within a time leaves the row for that long; a wake meanwhile takes it with the next in one statement', async () => {
    const target = bus();
    const seen = await collect(target);
    // No poll and no renewal within the test: every relay statement is a take woken here.
    const started = relay(target, { pollIntervalMs: 60_000, leaseMs: 180_000 });
    // The relay's first pass (lease, then a take of nothing) is over before the test writes: a row
    // written while it ran would be taken by it or by the pass it reruns at once.
    await firstPassOver();
    const knex = orm.em.getKnex();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Written without the ORM's flush (as a OneStatement writes), so only the wakes below wake the relay.
    let n = 0;
    const write = (kind: string) =>
      db.knex(`${SCHEMA}.outbox`).insert({
        id: `evt_within_${(n += 1)}_${Date.now()}`,
        kind,
        aggregate_type: 'payment_session',
        aggregate_id: 'ops_within',
        audience: 'mer_1',
        data: JSON.stringify({ n }),
        created_at: new Date(),
      });
    const takes: string[] = [];
    const count = (query: { sql: string }) => void (query.sql.includes('row_number()') && takes.push(query.sql));
    knex.on('query', count);
    try {
      await write('payment.processing');
      started.wake(2_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toHaveLength(0); // still within its time
      await write('payment.completed');
      started.wake();
      await eventually(() => seen.length === 2, 'both events');
      expect(takes).toHaveLength(1);
      // Alone, it leaves once its time is up.
      await write('payment.processing');
      const woken = Date.now();
      started.wake(150);
      await eventually(() => seen.length === 3, 'the third event');
      expect(Date.now() - woken).toBeGreaterThanOrEqual(140);
    } finally {
      knex.off('query', count);
    }
    expect(seen.map((e) => [e.kind, e.sequence])).toEqual([
      ['payment.processing', 1],
      ['payment.completed', 2],
      ['payment.processing', 3],
    ]);
  });

  it("an aggregate's first events go out from their writer without a take, numbered from 1; a later event is numbered after them", async () => {
    const target = bus();
    const seen = await collect(target);
    // No poll and no renewal within the test: every relay statement is one the test causes.
    relay(target, { pollIntervalMs: 60_000, leaseMs: 180_000 });
    await firstPassOver();
    let ids: string[] = [];
    const publishing = await relayStatementsDuring(async () => {
      ids = await writeFirst('ops_first', ['payment.initiated', 'payment.note']);
      await eventually(() => seen.length === 2, 'the first events');
    });
    expect(publishing).toHaveLength(0);
    expect(seen.map((e) => [e.id, e.sequence])).toEqual([
      [ids[0], 1],
      [ids[1], 2],
    ]);
    // The next take stamps them, leaves them out and numbers the aggregate's next event after them.
    const taking = await relayStatementsDuring(async () => {
      await commit('ops_first', ['payment.processing']);
      await eventually(() => seen.length === 3, 'the later event');
    });
    expect(taking).toHaveLength(1);
    expect(seen[2]).toMatchObject({ kind: 'payment.processing', sequence: 3 });
    for (const r of relays.splice(0)) await r.stop();
    const rows = await db.knex(`${SCHEMA}.outbox`).where({ aggregate_id: 'ops_first' }).orderBy('sequence');
    expect(rows.map((row) => [row.aggregate_sequence, row.published_at !== null])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
  });

  it('a first event handed to a relay without the lease is left to the holder, which takes it with the same number', async () => {
    const target = bus();
    const seen = await collect(target);
    relay(target, { leaseMs: 300 });
    await leaseTaken();
    // Another instance holds the lease now.
    await db
      .knex(`${SCHEMA}.outbox_relay_lease`)
      .update({ token: 'other', lease_until: db.knex.raw(`now() + interval '1 second'`) });
    await new Promise((resolve) => setTimeout(resolve, 200)); // this relay's next renewal finds it taken
    const [id] = await writeFirst('ops_first_fenced', ['payment.initiated']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toHaveLength(0);
    expect(await unpublished()).toBe(1);
    // The other instance's lease runs out unrenewed: this relay takes over and takes the row.
    await eventually(() => seen.length === 1, 'the event after the takeover');
    expect(seen[0]).toMatchObject({ id, sequence: 1 });
  });

  it('a first event the bus refused is not lost: a take publishes it, same id and number, once the bus takes events again', async () => {
    const target = bus();
    const seen = await collect(target);
    let down = true;
    let refusals = 0;
    const flaky: EventBus = {
      ...target,
      publish: async (event) => {
        if (!down) return target.publish(event);
        refusals += 1;
        throw new BusUnavailableError('test outage');
      },
    };
    relay(flaky, { pollIntervalMs: 60_000 });
    await firstPassOver();
    const [id] = await writeFirst('ops_first_refused', ['payment.initiated']);
    await eventually(() => refusals > 0, 'a refusal');
    expect(await unpublished()).toBe(1);
    down = false;
    await eventually(() => seen.length === 1, 'the event after the outage', 30_000);
    expect(seen[0]).toMatchObject({ id, sequence: 1 });
  });

  it('a relay that died holding the lease is taken over once it runs out, with the numbering carried on', async () => {
    const target = bus();
    const seen = await collect(target);
    relay(target, { leaseMs: 300 });
    await commit('ops_takeover', ['payment.initiated']);
    await eventually(() => seen.length === 1, 'first event');
    for (const r of relays.splice(0)) await r.stop();
    // A dead instance's lease: held by a token nobody renews, for another 600 ms.
    await db.knex
      .raw(`insert into ${SCHEMA}.outbox_relay_lease (name, token, lease_until) values ('relay', 'dead', now() + interval '600 milliseconds')
      on conflict (name) do update set token = excluded.token, lease_until = excluded.lease_until`);
    const started = Date.now();
    relay(target, { leaseMs: 300 });
    await commit('ops_takeover', ['payment.completed']);
    await eventually(() => seen.length === 2, 'event after the takeover');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(seen.map((e) => e.sequence)).toEqual([1, 2]);
  });

  it('a relay whose lease went to another instance takes nothing more', async () => {
    const target = bus();
    const seen = await collect(target);
    relay(target, { leaseMs: 60_000 });
    await commit('ops_fenced', ['payment.initiated']);
    await eventually(() => seen.length === 1, 'first event');
    // Another instance holds the lease now (this one was paused past its end, say).
    await db
      .knex(`${SCHEMA}.outbox_relay_lease`)
      .update({ token: 'other', lease_until: db.knex.raw(`now() + interval '1 minute'`) });
    await commit('ops_fenced', ['payment.completed']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toHaveLength(1);
    expect(await unpublished()).toBe(1);
  });

  (amqpUrl ? describe : describe.skip)('on RabbitMQ', () => {
    const url = amqpUrl!;

    it('events wait in the outbox while the broker is unreachable and flow when a relay on a live broker takes over', async () => {
      const namespace = testNamespace();
      const live = bus(() => createRabbitBus(url, testRabbitOptions(namespace)));
      const received: string[] = [];
      await live.consume('webhooks', 'payment.*', async (event) => void received.push(event.id));
      const dead = bus(() => createRabbitBus('amqp://guest:guest@127.0.0.1:1', testRabbitOptions(namespace)));
      const deadRelay = relay(dead);
      const ids = await commit('ops_dead', ['payment.processing', 'payment.completed']);
      // The relay has tried (and failed) by the time a later commit is still unpublished too.
      const [later] = await commit('ops_dead', ['payment.failed']);
      expect(await unpublished()).toBe(3);
      await deadRelay.stop();
      relay(live);
      await eventually(() => received.length === 3, 'events through the live broker');
      expect(received).toEqual([...ids, later]);
    });

    it('reconnects by itself after the broker link drops, and the waiting events flow', async () => {
      const proxy = await startOutageProxy(url);
      try {
        const namespace = testNamespace();
        const consumer = bus(() => createRabbitBus(url, testRabbitOptions(namespace)));
        const received: string[] = [];
        await consumer.consume('webhooks', 'payment.*', async (event) => void received.push(event.id));
        const throughProxy = bus(() => createRabbitBus(proxy.url, testRabbitOptions(namespace)));
        relay(throughProxy);
        const before = await commit('ops_link', ['payment.processing']);
        await eventually(() => received.length === 1, 'event before the outage');
        await proxy.cut();
        const during = await commit('ops_link', ['payment.completed', 'payment.completed']);
        expect(await unpublished()).toBeGreaterThanOrEqual(1);
        await proxy.restore();
        await eventually(() => received.length >= 3, 'events after the link returns', 40_000);
        expect([...new Set(received)]).toEqual([...before, ...during]);
      } finally {
        await proxy.close();
      }
    });
  });
});
