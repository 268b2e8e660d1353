import type { EventSubscriber } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { EventBus } from './bus';
import type { PlatformEvent } from './event';
import { OutboxEvent } from './outbox.entity';

export interface OutboxRelayOptions {
  /** The owning service's ORM: its default schema holds the outbox table. */
  orm: MikroORM;
  bus: EventBus;
  /** How often the outbox is checked when nothing woke the relay (other instances' writes). */
  pollIntervalMs?: number;
  batchSize?: number;
  /** Longest pause between attempts while the bus refuses events. */
  maxBackoffMs?: number;
  onError?: (error: unknown) => void;
}

export interface OutboxRelay {
  /** Look at the outbox now (called after a commit that wrote an event). */
  wake(): void;
  stop(): Promise<void>;
}

interface OutboxRow {
  sequence: string;
  id: string;
  kind: string;
  aggregate_type: string;
  aggregate_id: string;
  audience: string | null;
  data: Record<string, unknown> | string;
  created_at: Date | string;
  aggregate_sequence: number | string | null;
}

const toEvent = (row: OutboxRow): PlatformEvent => ({
  id: row.id,
  kind: row.kind,
  aggregateType: row.aggregate_type,
  aggregateId: row.aggregate_id,
  audience: row.audience,
  createdAt: new Date(row.created_at).toISOString(),
  ...(row.aggregate_sequence != null ? { sequence: Number(row.aggregate_sequence) } : {}),
  data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
});

/**
 * Publishes a service's outbox to the bus: unpublished rows in sequence order, stamped
 * published_at once the bus confirmed them. At least once: a crash between confirm and stamp
 * publishes the row again, with the same event id.
 *
 * One relay per schema works at a time, whatever the number of instances: each pass runs in a
 * transaction holding a transaction-scoped advisory lock, so order per aggregate is the outbox
 * order. Nothing is held between passes (PGlite has a single connection to share).
 */
/**
 * Gives each row its place among its aggregate's events (aggregate_sequence), continuing from the
 * aggregate's last published one, in outbox order. Under the relay's lock, and in the pass's
 * transaction: a pass that fails numbers the same rows the same way next time.
 */
async function numberPerAggregate(trx: Knex.Transaction, table: string, rows: OutboxRow[]): Promise<void> {
  if (!rows.length) return;
  const numbered: Array<{ sequence: string; aggregate_sequence: number }> = (
    await trx.raw(
      `with batch as (
         select sequence, aggregate_type, aggregate_id, row_number() over (partition by aggregate_type, aggregate_id order by sequence) as nth
         from ${table} where sequence = any(?::bigint[]))
       update ${table} o set aggregate_sequence = b.nth + coalesce(
         (select max(p.aggregate_sequence) from ${table} p where p.aggregate_type = b.aggregate_type and p.aggregate_id = b.aggregate_id and p.published_at is not null), 0)
       from batch b where o.sequence = b.sequence
       returning o.sequence, o.aggregate_sequence`,
      [rows.map((row) => row.sequence)],
    )
  ).rows;
  const bySequence = new Map(numbered.map((row) => [String(row.sequence), row.aggregate_sequence]));
  for (const row of rows) row.aggregate_sequence = bySequence.get(String(row.sequence)) ?? null;
}

export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { orm, bus } = options;
  const schema = orm.config.get('schema') ?? 'public';
  const table = `${schema}.outbox`;
  const lockKey = `outbox-relay:${schema}`;
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const batchSize = options.batchSize ?? 200;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const report = options.onError ?? (() => undefined);
  const knex = orm.em.getKnex();

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let failures = 0;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), ms);
    timer.unref();
  };

  /** One pass; true when a full batch went out (more may be waiting). */
  const pass = async (woken: boolean): Promise<boolean> => {
    // A poll looks first (index-only on the partial index), so idle polls take no lock and no
    // transaction; a pass woken by a commit knows there is something and saves the round trip.
    if (!woken) {
      const waiting = await knex.raw(`select 1 from ${table} where published_at is null limit 1`);
      if (!waiting.rows.length) return false;
    }
    return knex.transaction(async (trx) => {
      const lock = await trx.raw('select pg_try_advisory_xact_lock(hashtext(?)) as locked', [lockKey]);
      if (!lock.rows[0]?.locked) return false; // another instance is relaying this schema
      const rows: OutboxRow[] = (await trx.raw(`select * from ${table} where published_at is null order by sequence limit ?`, [batchSize])).rows;
      await numberPerAggregate(trx, table, rows);
      // Sent back to back on one channel (the broker keeps their order), confirmed together.
      const outcomes = await Promise.allSettled(rows.map((row) => bus.publish(toEvent(row))));
      const confirmed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
      // Only the confirmed prefix is stamped: a later event is never marked ahead of an earlier one.
      const prefix = confirmed === -1 ? rows : rows.slice(0, confirmed);
      if (prefix.length) {
        await trx.raw(`update ${table} set published_at = now() where sequence = any(?::bigint[])`, [prefix.map((row) => row.sequence)]);
      }
      if (confirmed !== -1) throw (outcomes[confirmed] as PromiseRejectedResult).reason;
      return rows.length === batchSize;
    });
  };

  let woken = true; // the first pass looks at once
  const run = async (): Promise<void> => {
    if (running || stopped) {
      again = true;
      return;
    }
    again = false;
    const byCommit = woken;
    woken = false;
    let next = pollIntervalMs;
    running = (async () => {
      try {
        const more = await pass(byCommit);
        failures = 0;
        if (more) next = 0;
      } catch (error) {
        failures += 1;
        report(error);
        next = Math.min(maxBackoffMs, 100 * 2 ** Math.min(failures, 10));
      }
    })();
    await running;
    running = undefined;
    // A wake during the pass may concern a row committed after its read.
    schedule(again && failures === 0 ? 0 : next);
  };

  // Wake on the commit of a transaction that created an outbox row: the webhook latency target
  // leaves no room to wait for the next poll.
  let created = false;
  const subscriber: EventSubscriber<OutboxEvent> = {
    getSubscribedEntities: () => [OutboxEvent],
    afterCreate: () => {
      created = true;
    },
    afterFlush: () => wakeIfCreated(),
    afterTransactionCommit: () => wakeIfCreated(),
  };
  const wakeIfCreated = () => {
    if (!created) return;
    created = false;
    relay.wake();
  };
  orm.em.getEventManager().registerSubscriber(subscriber);

  const relay: OutboxRelay = {
    wake() {
      if (stopped) return;
      // During a backoff the bus is down: waking early would only fail again.
      if (failures > 0) return;
      woken = true;
      if (running) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
  schedule(0);
  return relay;
}
