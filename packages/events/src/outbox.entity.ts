import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * An event waiting to be published (transactional outbox). Written in the same transaction as
 * the state change it describes; the relay publishes it and stamps publishedAt. The table lives
 * in the owning subgraph's schema (the ORM's default schema), created by `outboxMigrationSql`.
 */
@Entity({ tableName: 'outbox' })
@Index({ name: 'outbox_unpublished_index', properties: ['sequence'], options: { where: 'published_at is null' } })
export class OutboxEvent {
  /** Insertion order: the relay publishes in this order, so per-aggregate order is kept. */
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  sequence!: bigint;

  /** evt_…: stable across redeliveries, so receivers can deduplicate. */
  @Property({ type: 'text', unique: true })
  id!: string;

  /** e.g. payment.completed */
  @Property({ type: 'text' })
  kind!: string;

  /** e.g. payment_session */
  @Property({ type: 'text' })
  aggregateType!: string;

  @Property({ type: 'text' })
  aggregateId!: string;

  /** Who the event is for (merchant id, tpp id): webhooks go to them, subscriptions are filtered by it. */
  @Property({ type: 'text', nullable: true })
  audience?: string | null;

  @Property({ type: 'json' })
  data!: Record<string, unknown>;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  publishedAt?: Date | null;

  /** Its place among its aggregate's events, from 1: set by the relay as it publishes (PlatformEvent.sequence). */
  @Property({ type: 'integer', nullable: true })
  aggregateSequence?: number | null;
}

/**
 * SQL for a subgraph's migration that adds the per-aggregate sequence to its outbox: the column,
 * its index, and the numbers of the events already there, in outbox order.
 */
export function outboxAggregateSequenceSql(schema: string): string[] {
  return [
    `alter table "${schema}"."outbox" add column "aggregate_sequence" integer null;`,
    `update "${schema}"."outbox" o set "aggregate_sequence" = n.nth
       from (select "sequence", row_number() over (partition by "aggregate_type", "aggregate_id" order by "sequence") as nth from "${schema}"."outbox") n
       where o."sequence" = n."sequence";`,
    `create index "outbox_aggregate_index" on "${schema}"."outbox" ("aggregate_type", "aggregate_id", "aggregate_sequence");`,
  ];
}

/** SQL for a subgraph's migration that adds its outbox table. */
export function outboxMigrationSql(schema: string): string[] {
  return [
    `create table "${schema}"."outbox" (
      "sequence" bigserial primary key,
      "id" text not null,
      "kind" text not null,
      "aggregate_type" text not null,
      "aggregate_id" text not null,
      "audience" text null,
      "data" jsonb not null,
      "created_at" timestamptz not null,
      "published_at" timestamptz null,
      constraint "outbox_id_unique" unique ("id"));`,
    `create index "outbox_unpublished_index" on "${schema}"."outbox" ("sequence") where "published_at" is null;`,
  ];
}

/**
 * SQL for a subgraph's migration that adds its outbox relay's lease (relay.ts): one row naming
 * the instance that relays the schema (its token) and until when.
 */
export function outboxRelayLeaseSql(schema: string): string[] {
  return [
    `create table "${schema}"."outbox_relay_lease" ("name" text primary key, "token" text not null, "lease_until" timestamptz not null);`,
  ];
}

/**
 * The NOTIFY channel of a schema's outbox: its relay listens on it (relay.ts, @gateway/db
 * wake-ups), and an instance that wrote outbox rows without holding the relay's lease notifies
 * it after its commit (relay.ts, wake), so the holder publishes at once.
 */
export const outboxChannel = (schema: string): string => `gateway_outbox_${schema.toLowerCase()}`;

/**
 * History (the migrations of 3 January 2027 ran it; outboxNotifyDropSql undoes it): a trigger that
 * made every statement adding outbox rows notify the outbox's channel at its commit. PostgreSQL
 * serializes the commits of transactions that notify (one lock, held through the commit's WAL
 * flush), so every payment's writes queued behind each other's disk flush.
 */
export function outboxNotifySql(schema: string): string[] {
  return [
    `create or replace function "${schema}"."outbox_notify"() returns trigger language plpgsql as $$
       begin
         perform pg_notify('${outboxChannel(schema)}', '');
         return null;
       end $$;`,
    `create trigger "outbox_notify" after insert on "${schema}"."outbox" for each statement execute function "${schema}"."outbox_notify"();`,
  ];
}

/**
 * SQL for a subgraph's migration that drops outboxNotifySql's trigger (issue 53): a NOTIFY in the
 * writing transaction serialized every commit that added an event (1,100-1,600 such commits a
 * second against 9,000-9,800 plain ones, pgbench, 20 clients, 2 cores). The relay's lease holder
 * is woken in-process by its own instance's commits and by NOTIFY, sent after the commit, by the others.
 */
export function outboxNotifyDropSql(schema: string): string[] {
  return [
    `drop trigger if exists "outbox_notify" on "${schema}"."outbox";`,
    `drop function if exists "${schema}"."outbox_notify"();`,
  ];
}
