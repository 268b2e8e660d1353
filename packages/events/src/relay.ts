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
 * Takes the next batch of unpublished rows in one statement: stamped published_at and numbered
 * among their aggregate's events (aggregate_sequence, continuing from the aggregate's last
 * published one, in outbox order). Runs in the pass's transaction under the relay's lock, so the
 * stamp only shows once the bus confirmed every row; a pass that fails rolls it back and numbers
 * the same rows the same way next time.
 */
async function takeBatch(trx: Knex.Transaction, table: string, batchSize: number): Promise<OutboxRow[]> {
  const rows: OutboxRow[] = (
    await trx.raw(
      `with batch as (
         select sequence, aggregate_type, aggregate_id, row_number() over (partition by aggregate_type, aggregate_id order by sequence) as nth
         from ${table} where published_at is null order by sequence limit ?)
       update ${table} o set published_at = now(), aggregate_sequence = b.nth + coalesce(
         (select max(p.aggregate_sequence) from ${table} p where p.aggregate_type = b.aggregate_type and p.aggregate_id = b.aggregate_id and p.published_at is not null), 0)
       from batch b where o.sequence = b.sequence
       returning o.*`,
      [batchSize],
    )
  ).rows;
  // RETURNING keeps no order: the bus gets the outbox order.
  return rows.sort((a, b) => (BigInt(a.sequence) < BigInt(b.sequence) ? -1 : 1));
}

/**
 * Publishes a service's outbox to the bus: unpublished rows in sequence order, stamped
 * published_at once the bus confirmed them. At least once: a crash between confirm and stamp
 * publishes the row again, with the same event id.
 *
 * One relay per schema works at a time, whatever the number of instances: each pass runs in a
 * transaction holding a transaction-scoped advisory lock, so order per aggregate is the outbox
 * order. Nothing is held between passes (PGlite has a single connection to share).
 */
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
      const rows = await takeBatch(trx, table, batchSize);
      // Sent back to back on one channel (the broker keeps their order), confirmed together; one
      // refusal rolls the whole batch back (at least once: the confirmed ones go again, same ids).
      const outcomes = await Promise.allSettled(rows.map((row) => bus.publish(toEvent(row))));
      const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (refused) throw refused.reason;
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
