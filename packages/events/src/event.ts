import type { OneStatement } from '@gateway/db';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@gateway/kernel';
import { OutboxEvent } from './outbox.entity';

/** What travels on the bus: the platform's event envelope. */
export interface PlatformEvent<T = Record<string, unknown>> {
  id: string;
  kind: string;
  aggregateType: string;
  aggregateId: string;
  audience?: string | null;
  /** ISO 8601 UTC */
  createdAt: string;
  /**
   * The event's place among its aggregate's events (a session's, consent's, payment order's,
   * mandate's), from 1, assigned by the outbox relay in outbox order: a receiver orders by it and
   * drops what it already has. Absent on events relayed before it existed.
   */
  sequence?: number;
  data: T;
}

export interface RecordEventInput {
  kind: string;
  aggregateType: string;
  aggregateId: string;
  audience?: string | null;
  data: Record<string, unknown>;
}

/** The outbox row of an event, as recordEvent persists it and recordEventIn inserts it. */
function newEventRow(input: RecordEventInput, now: Date): OutboxEvent {
  return {
    id: newId('event'),
    kind: input.kind,
    aggregateType: input.aggregateType,
    aggregateId: input.aggregateId,
    audience: input.audience ?? null,
    data: input.data,
    createdAt: now,
    publishedAt: null,
  } as OutboxEvent;
}

/**
 * Records an event in the caller's transaction (the outbox): it commits with the state change or
 * not at all, and the relay publishes it afterwards, whatever happens to the bus meanwhile.
 */
export function recordEvent(em: EntityManager, input: RecordEventInput, now = new Date()): OutboxEvent {
  return em.create(OutboxEvent, newEventRow(input, now));
}

/**
 * recordEvent for a move written as one statement: the event as part `name` of the caller's
 * OneStatement, written only if part `when` changed a row (the move it belongs to).
 */
export function recordEventIn(
  statement: OneStatement,
  name: string,
  input: RecordEventInput,
  now: Date,
  when?: string,
): void {
  statement.insert(name, OutboxEvent, newEventRow(input, now), when);
}

/** An aggregate's first event, written by a OneStatement that creates the aggregate (recordFirstEventIn). */
export interface FirstEvent {
  /** The statement's part that inserted it: its outbox sequence is read back from it. */
  part: string;
  row: OutboxEvent;
}

/**
 * recordEventIn for the first event of an aggregate the same statement creates: once the
 * statement ran, its writer publishes it at once (publishFirstEvents) instead of waking the relay
 * for a take. Only a first event may be: nothing of its aggregate can be published before it, and
 * its number is 1, so no statement is needed to order or number it.
 */
export function recordFirstEventIn(
  statement: OneStatement,
  name: string,
  input: RecordEventInput,
  now: Date,
  when?: string,
): FirstEvent {
  const row = newEventRow(input, now);
  statement.insert(name, OutboxEvent, row, when, 'sequence');
  return { part: name, row };
}

/**
 * Events computed by the statement itself, as part `name` of the caller's OneStatement: `select`
 * yields (kind, aggregate_type, aggregate_id, audience, data, n) per event, n from 1 to `max`
 * picking one of `max` event ids made here (ids are made in one place, newId; the unused ones
 * are simply never written). For an event whose very existence depends on rows the statement
 * writes (a threshold crossed by the reservation it makes), which no caller can know beforehand.
 * Values go in `selectBindings` (its `?`s), never into the text: the text is prepared once per
 * connection, and a text per value would fill the connection's prepared statements.
 */
export function recordEventRowsIn(
  statement: OneStatement,
  name: string,
  max: number,
  select: string,
  now: Date,
  selectBindings: readonly unknown[] = [],
): void {
  const ids = Array.from({ length: max }, () => newId('event'));
  statement.sql(
    name,
    `insert into ${statement.tableOf(OutboxEvent)} ("id", "kind", "aggregate_type", "aggregate_id", "audience", "data", "created_at")
     select (array[${ids.map(() => '?').join(', ')}])["n"], "kind", "aggregate_type", "aggregate_id", "audience", "data", ?
     from (${select}) as e("kind", "aggregate_type", "aggregate_id", "audience", "data", "n") returning 1`,
    [...ids, now, ...selectBindings],
  );
}

export function toPlatformEvent(row: OutboxEvent): PlatformEvent {
  return {
    id: row.id,
    kind: row.kind,
    aggregateType: row.aggregateType,
    aggregateId: row.aggregateId,
    audience: row.audience ?? null,
    createdAt: row.createdAt.toISOString(),
    data: row.data,
  };
}
