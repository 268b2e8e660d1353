import { randomUUID } from 'node:crypto';
import type { EventSubscriber } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { heartbeatOf, rawQuery, wakeUpsOf, type OneStatement } from '@gateway/db';
import type { EventBus } from './bus';
import type { FirstEvent, PlatformEvent } from './event';
import { OutboxEvent, outboxChannel } from './outbox.entity';

export interface OutboxRelayOptions {
  /** The owning service's ORM: its default schema holds the outbox table. */
  orm: MikroORM;
  bus: EventBus;
  /**
   * How often the leader checks the outbox by itself when nothing woke it: a fallback only, since
   * the lease renewal (the process's heartbeat, every third of the lease) looks too, and other
   * instances' writes wake it by NOTIFY (sent after their commit, tellHolder).
   */
  pollIntervalMs?: number;
  batchSize?: number;
  /** Longest pause between attempts while the bus refuses events. */
  maxBackoffMs?: number;
  /**
   * How long the relay's lease lasts unrenewed: when the instance relaying a schema dies, another
   * one takes over within about this long (plus a third of it, how often followers ask).
   */
  leaseMs?: number;
  onError?: (error: unknown) => void;
}

export interface OutboxRelay {
  /**
   * Look at the outbox now (called after a commit that wrote an event), or within `withinMs` at
   * the latest: a wake meanwhile (the next commit of the same flow) takes both rows in one pass.
   */
  wake(withinMs?: number): void;
  /**
   * Publishes committed rows that are their aggregates' first events (numbered already) without a
   * take, when this relay holds the lease; else wakes whoever does (publishFirstEvents).
   */
  publishFirst(rows: OutboxRow[]): void;
  stop(): Promise<void>;
}

/** The relay started on each ORM, by its EventManager (which every fork shares). */
const relaysByEvents = new WeakMap<object, OutboxRelay>();

/**
 * Tells the relay of `em`'s ORM that a committed write added outbox rows without the ORM's
 * flush (a OneStatement): it looks now rather than at its next poll; with `withinMs`, at the
 * latest that much later, so that the event leaves with the next one of the same flow when it
 * comes sooner (a checkout's claim and its same-bank payment's completion).
 */
export function wakeOutboxRelay(em: EntityManager, options: { withinMs?: number } = {}): void {
  relaysByEvents.get(em.getEventManager())?.wake(options.withinMs);
}

/**
 * After `statement` ran: its aggregates' first events (recordFirstEventIn) go to the bus from here
 * (issue 53: a session's payment.initiated needed a take statement of its own, about a tenth of a
 * same-bank payment's statements). Only the relay holding the lease publishes them, under its
 * own exclusion, so the order of everything else it publishes is untouched; without the lease
 * (another instance relays, or the bus refused and it handed it back), the relay is woken as
 * wakeOutboxRelay does, and a take publishes them with the same numbers.
 */
export function publishFirstEvents(em: EntityManager, statement: OneStatement, events: readonly FirstEvent[]): void {
  const relay = relaysByEvents.get(em.getEventManager());
  if (!relay) return;
  const rows: OutboxRow[] = [];
  const numbers = new Map<string, number>();
  for (const { part, row } of events) {
    const sequence = statement.answered(part);
    if (sequence === null) continue; // not written: the statement's condition did not hold
    const aggregate = `${row.aggregateType}\u0000${row.aggregateId}`;
    const n = (numbers.get(aggregate) ?? 0) + 1;
    numbers.set(aggregate, n);
    rows.push({
      sequence,
      id: row.id,
      kind: row.kind,
      aggregate_type: row.aggregateType,
      aggregate_id: row.aggregateId,
      audience: row.audience ?? null,
      data: row.data,
      created_at: row.createdAt,
      aggregate_sequence: n,
    });
  }
  if (rows.length > 0) relay.publishFirst(rows);
}

/** How many sequences a relay remembers having published itself: a first event a take published meanwhile is not sent twice. */
const REMEMBERED_PUBLISHED = 4096;

/** At most one NOTIFY to the lease holder per this many milliseconds from an instance that wrote events (tellHolder). */
const TELL_SPACING_MS = 5;

/** The relay of a schema changes hands within about this long after its instance died (issue 17: seconds). */
const DEFAULT_RELAY_LEASE_MS = 3_000;

export interface OutboxRow {
  sequence: string;
  id: string;
  kind: string;
  aggregate_type: string;
  aggregate_id: string;
  audience: string | null;
  data: Record<string, unknown> | string;
  created_at: Date | string;
  aggregate_sequence: number | string;
}

/** A row the bus confirmed and whose stamp is not written yet: its outbox sequence, number and aggregate. */
interface Confirmed {
  s: string;
  n: number;
  t: string;
  a: string;
}

const toEvent = (row: OutboxRow): PlatformEvent => ({
  id: row.id,
  kind: row.kind,
  aggregateType: row.aggregate_type,
  aggregateId: row.aggregate_id,
  audience: row.audience,
  createdAt: new Date(row.created_at).toISOString(),
  sequence: Number(row.aggregate_sequence),
  data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
});

/**
 * The statements of a relay, each one round trip (issue 15: statements per payment). Every one
 * starts by stamping the rows the bus confirmed since the last statement (`confirmed`, a JSON
 * list bound first): published_at and their number among their aggregate's events. So a row is
 * stamped only once confirmed, and no statement of its own is spent on it. The rows are found by
 * their sequences as an array (`= any`): an index lookup in the prepared plan whatever the
 * outbox's size when the plan was made (a join to the list was a scan of the whole outbox).
 */
function relayStatements(schema: string) {
  const table = `"${schema}"."outbox"`;
  const lease = `"${schema}"."outbox_relay_lease"`;
  const stamp = `confirmed as (select * from jsonb_to_recordset(?::jsonb) as c(s bigint, n integer, t text, a text)),
    stamped as (update ${table} o set published_at = now(), aggregate_sequence = c.n from confirmed c
      where o.sequence = any (array(select x.s from confirmed x)) and o.sequence = c.s and o.published_at is null)`;
  return {
    /**
     * Takes the lease when it is free or ran out, or renews this relay's own (token bound second,
     * its length in ms third); answers the token when this relay holds it.
     */
    claim: `with ${stamp}
      insert into ${lease} as l (name, token, lease_until) values ('relay', ?, now() + ?::integer * interval '1 millisecond')
      on conflict (name) do update set token = excluded.token, lease_until = excluded.lease_until
        where l.token = excluded.token or l.lease_until < now()
      returning l.token`,
    /** Ends this relay's lease (token bound second) so another instance takes over at once. */
    release: `with ${stamp} update ${lease} set lease_until = now() - interval '1 millisecond' where name = 'relay' and token = ?`,
    /** Whether a row waits that is not among the confirmed ones (an idle poll: index only, no write when nothing is confirmed). */
    waiting: `with ${stamp} select 1 from ${table} o where o.published_at is null and o.sequence not in (select s from confirmed) limit 1`,
    /**
     * The next batch (lease token bound second, batch size third), in outbox order, while this
     * relay's lease runs: each row numbered among its aggregate's events, after the aggregate's
     * last stamped or confirmed one. The confirmed rows are stamped by this same statement, which
     * cannot see its own stamps: they are left out by sequence and counted by number.
     */
    take: `with ${stamp},
      batch as (
        select o.*, row_number() over (partition by o.aggregate_type, o.aggregate_id order by o.sequence) as nth from ${table} o
        where o.published_at is null and o.sequence not in (select s from confirmed)
          and exists (select 1 from ${lease} l where l.name = 'relay' and l.token = ? and l.lease_until > now())
        order by o.sequence limit ?)
      select b.sequence, b.id, b.kind, b.aggregate_type, b.aggregate_id, b.audience, b.data, b.created_at, b.nth + greatest(
          coalesce((select max(p.aggregate_sequence) from ${table} p
            where p.aggregate_type = b.aggregate_type and p.aggregate_id = b.aggregate_id and p.published_at is not null), 0),
          coalesce((select max(c.n) from confirmed c where c.t = b.aggregate_type and c.a = b.aggregate_id), 0)) as aggregate_sequence
      from batch b order by b.sequence`,
  };
}

/**
 * Publishes a service's outbox to the bus: unpublished rows in sequence order, each numbered among
 * its aggregate's events, stamped published_at once the bus confirmed it. At least once: a crash
 * between confirm and stamp publishes the row again, with the same event id and number.
 *
 * One relay per schema works at a time, whatever the number of instances: the one holding the
 * schema's lease row (outbox_relay_lease), renewed every third of its length; the others ask for
 * it as often and take it over once it ran out, so order per aggregate is the outbox order. A
 * take reads only while its lease runs. Why a lease and not a transaction per pass (as before):
 * a pass held BEGIN, an advisory lock, the batch and COMMIT across the broker's confirms, four
 * statements per pass and one event per pass when events come one at a time; now a pass is one
 * statement, the stamps riding on the next one (the next take, the renewal, an idle poll).
 * Nothing else is held between statements (PGlite has a single connection to share).
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { orm, bus } = options;
  const schema = orm.config.get('schema') ?? 'public';
  const sql = relayStatements(schema);
  const pollIntervalMs = options.pollIntervalMs ?? 60_000;
  const batchSize = options.batchSize ?? 200;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const leaseMs = options.leaseMs ?? DEFAULT_RELAY_LEASE_MS;
  const renewEveryMs = Math.max(10, Math.floor(leaseMs / 3));
  const report = options.onError ?? (() => undefined);
  const knex = orm.em.getKnex();

  let timer: NodeJS.Timeout | undefined;
  /** When the timer fires (ms since the epoch). */
  let dueAt = Infinity;
  let running: Promise<void> | undefined;
  let again = false;
  let failures = 0;
  let stopped = false;
  /** This relay's lease token while it holds the lease, and when it last got or renewed it. */
  let token: string | null = null;
  let renewedAt = 0;
  /** Confirmed by the bus, stamp not yet written: written by the next statement. */
  let confirmed: Confirmed[] = [];
  /** First events handed over by their writers (publishFirst), published by the next run without a take. */
  let firsts: OutboxRow[] = [];
  /** Sequences this relay published lately (takes and first events), oldest first: none goes twice. */
  const published = new Set<string>();
  /** The heartbeat's statement in flight for this relay: what it stamps, the token it asks with. */
  let beat: { stamping: Confirmed[]; candidate: string; settle: () => void } | undefined;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    dueAt = Date.now() + ms;
    timer = setTimeout(() => void run(), ms);
    timer.unref();
  };

  /** Runs one statement that also stamps what is confirmed; once it succeeded those stamps are written. */
  const withStamps = async <T>(text: string, bindings: ReadonlyArray<string | number | null>): Promise<T[]> => {
    const stamping = confirmed;
    const { rows } = await rawQuery(knex, text, [JSON.stringify(stamping), ...bindings]);
    confirmed = confirmed.slice(stamping.length);
    return rows as T[];
  };

  const claim = async (): Promise<void> => {
    const candidate = token ?? randomUUID();
    const rows = await withStamps<{ token: string }>(sql.claim, [candidate, leaseMs]);
    token = rows.length > 0 ? candidate : null;
    if (token) renewedAt = Date.now();
  };

  const release = async (): Promise<void> => {
    if (!token) return;
    await withStamps(sql.release, [token]);
    token = null;
  };

  /** One pass; true when a full batch went out (more may be waiting). */
  const pass = async (woken: boolean): Promise<boolean> => {
    // A poll looks first (index-only on the partial index), so idle polls read one index entry;
    // a pass woken by a commit knows there is something and saves the round trip.
    if (!woken && (await withStamps(sql.waiting, [])).length === 0) return false;
    const rows = await withStamps<OutboxRow>(sql.take, [token, batchSize]);
    // Sent back to back on one channel (the broker keeps their order), confirmed together; one
    // refusal leaves the whole batch unstamped (at least once: the confirmed ones go again, same
    // ids and numbers, since the numbers follow from the stamped rows).
    const outcomes = await Promise.allSettled(rows.map((row) => bus.publish(toEvent(row))));
    const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (refused) throw refused.reason;
    confirm(rows);
    return rows.length === batchSize;
  };

  /** Rows the bus confirmed: stamped by the next statement, remembered as published here. */
  const confirm = (rows: OutboxRow[]) => {
    for (const row of rows) {
      confirmed.push({
        s: row.sequence,
        n: Number(row.aggregate_sequence),
        t: row.aggregate_type,
        a: row.aggregate_id,
      });
      published.add(row.sequence);
    }
    for (const oldest of published) {
      if (published.size <= REMEMBERED_PUBLISHED) break;
      published.delete(oldest);
    }
  };

  /**
   * Publishes first events handed over by their writers: no statement, their numbers are theirs
   * (1 on). One a take already published (it read the committed row first) is not sent again. As
   * a pass: sent together, one refusal leaves them all unstamped for a take.
   */
  const publishFirsts = async (rows: OutboxRow[]): Promise<void> => {
    const fresh = rows.filter((row) => !published.has(row.sequence));
    const outcomes = await Promise.allSettled(fresh.map((row) => bus.publish(toEvent(row))));
    const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (refused) throw refused.reason;
    confirm(fresh);
  };

  /** Whether the lease surely still runs: a take checks it in its statement, first events have none. */
  const leaseSurelyHeld = () => token !== null && Date.now() - renewedAt < leaseMs - renewEveryMs;

  let woken = true; // the first pass looks at once
  const run = async (): Promise<void> => {
    if (running || stopped) {
      again = true;
      return;
    }
    again = false;
    let byCommit = woken;
    woken = false;
    const handed = firsts;
    firsts = [];
    let next = pollIntervalMs;
    running = (async () => {
      try {
        // First: a take below may bring later events of their aggregates, which must follow them on the channel.
        if (handed.length > 0) {
          if (failures === 0 && leaseSurelyHeld()) await publishFirsts(handed);
          else byCommit = true; // a take publishes them, if this relay still holds the lease
        }
        if (token === null || Date.now() - renewedAt >= renewEveryMs) await claim();
        // Another instance relays: the heartbeat asks again every third of the lease.
        if (token === null) {
          if (byCommit) tellHolder();
          return;
        }
        // Only first events to publish: nothing to take or poll for.
        if (handed.length > 0 && !byCommit) return;
        const more = await pass(byCommit);
        failures = 0;
        if (more) next = 0;
      } catch (error) {
        failures += 1;
        report(error);
        next = Math.min(maxBackoffMs, 100 * 2 ** Math.min(failures, 10));
        // The lease goes back while this relay cannot publish: an instance whose broker link works may.
        await release().catch(() => undefined);
      }
    })();
    await running;
    running = undefined;
    // A wake during the pass may concern a row committed after its read.
    schedule(again && failures === 0 && token !== null ? 0 : next);
  };

  // Wake on the commit of a transaction that created an outbox row: the webhook latency target
  // leaves no room to wait for the next poll. Not on the flush inside a transaction: it comes
  // before the commit, and a pass then would not see the row yet (it would wait for the poll).
  // Tracked per EntityManager, so another transaction's commit does not stand in for this one's.
  const created = new WeakSet<object>();
  const wakeAfter = (em: object) => {
    if (created.delete(em)) relay.wake();
  };
  const subscriber: EventSubscriber<OutboxEvent> = {
    getSubscribedEntities: () => [OutboxEvent],
    afterCreate: (args) => void created.add(args.em),
    afterFlush: (args) => {
      if (!args.em.isInTransaction()) wakeAfter(args.em);
    },
    afterTransactionCommit: (args) => wakeAfter(args.em),
  };
  orm.em.getEventManager().registerSubscriber(subscriber);

  // An instance that does not hold the lease tells the one that does, after its commit, by NOTIFY
  // on the outbox's channel: a statement of its own, outside the writing transaction. (A NOTIFY
  // inside it, as a trigger sent one, takes the database's notify lock at commit and holds it
  // through the WAL flush: every commit that added an event waited for the others', issue 53.)
  // One at a time, spaced: wakes meanwhile are told by the next one.
  let telling = false;
  let tellAgain = false;
  const tellHolder = () => {
    if (telling) {
      tellAgain = true;
      return;
    }
    telling = true;
    tellAgain = false;
    void rawQuery(knex, 'select pg_notify(?, ?)', [outboxChannel(schema), ''])
      // Not told: the holder's look on its heartbeat finds the rows (within a third of the lease).
      .catch(() => undefined)
      .then(() => new Promise((resolve) => setTimeout(resolve, TELL_SPACING_MS).unref()))
      .then(() => {
        telling = false;
        if (tellAgain && !stopped) tellHolder();
      });
  };

  /** The holder looks at the outbox now, or within `withinMs`. During a backoff the bus is down: looking early would only fail again. */
  const look = (withinMs = 0) => {
    if (stopped || failures > 0 || token === null) return;
    woken = true;
    if (running) again = true;
    else if (Date.now() + withinMs < dueAt) schedule(withinMs);
  };

  const relay: OutboxRelay = {
    wake(withinMs = 0) {
      if (stopped || failures > 0) return;
      if (token === null) tellHolder();
      else look(withinMs);
    },
    publishFirst(rows) {
      if (stopped) return;
      if (failures > 0 || !leaseSurelyHeld()) {
        relay.wake();
        return;
      }
      firsts.push(...rows);
      if (running) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      leaveHeartbeat();
      stopListening();
      await running;
      // Stamps what the bus confirmed and lets another instance take over at once.
      await release().catch(report);
    },
  };
  relaysByEvents.set(orm.em.getEventManager(), relay);

  // The lease renewal (or a follower's ask) and an idle look at the outbox ride on the process's
  // heartbeat: one statement a tick for every relay and job of the process (issue 53), the
  // confirmed stamps with them. Sat out while a pass of this relay runs (it renews by itself then).
  const table = `"${schema}"."outbox"`;
  const leaseTable = `"${schema}"."outbox_relay_lease"`;
  const leaveHeartbeat = heartbeatOf(knex).join({
    everyMs: renewEveryMs,
    writesRow: leaseTable,
    sql(p) {
      // In a backoff the lease was handed back on purpose (the bus refuses): asked again after it.
      if (running || stopped || failures > 0) return undefined;
      const stamping = confirmed;
      const candidate = token ?? randomUUID();
      let settle!: () => void;
      running = new Promise<void>((resolve) => (settle = resolve));
      beat = { stamping, candidate, settle };
      return {
        ctes: [
          `${p}confirmed as (select * from jsonb_to_recordset(?::jsonb) as c(s bigint, n integer, t text, a text))`,
          `${p}stamped as (update ${table} o set published_at = now(), aggregate_sequence = c.n from ${p}confirmed c
            where o.sequence = any (array(select x.s from ${p}confirmed x)) and o.sequence = c.s and o.published_at is null)`,
          `${p}lease as (insert into ${leaseTable} as l (name, token, lease_until)
            values ('relay', ?, now() + ?::integer * interval '1 millisecond')
            on conflict (name) do update set token = excluded.token, lease_until = excluded.lease_until
              where l.token = excluded.token or l.lease_until < now()
            returning l.token)`,
        ],
        cteBindings: [JSON.stringify(stamping), candidate, leaseMs],
        columns: [
          `(select token from ${p}lease) as ${p}token`,
          `exists (select 1 from ${table} o where o.published_at is null
            and o.sequence not in (select s from ${p}confirmed)) as ${p}waiting`,
        ],
        columnBindings: [],
      };
    },
    done(columns, error) {
      const taken = beat!;
      beat = undefined;
      running = undefined;
      taken.settle();
      if (columns) {
        confirmed = confirmed.slice(taken.stamping.length);
        token = columns.token ? taken.candidate : null;
        if (token) renewedAt = Date.now();
        if (token && columns.waiting && failures === 0) woken = true;
      } else report(error);
      if (stopped) return;
      if ((woken || again) && token !== null && failures === 0) schedule(0);
    },
  });
  // Another instance's commit of an outbox row (its NOTIFY after the commit): the lease holder
  // looks now. A follower does not pass it on (followers would tell each other in a loop).
  const stopListening = wakeUpsOf(knex).on(outboxChannel(schema), () => look());
  schedule(0);
  return relay;
}
