import type { Knex } from '@mikro-orm/knex';
import { scalar, type BoundStatement } from './bound-parameters';

/** A bound on the texts remembered: they are the code's own, so this is never reached in practice. */
const MAX_POSITIONED = 2_000;
const positionedTexts = new Map<string, string>();

/**
 * `sql` with its `?` placeholders numbered `$1`, `$2`, … and `\?` a literal question mark, as
 * knex's PostgreSQL client positions them (positionBindings), remembered per text: the same
 * statement is sent thousands of times, and knex scanned its text (several kB for the webhook
 * intake) with a regular expression on every send.
 */
export function positioned(sql: string): string {
  let text = positionedTexts.get(sql);
  if (text === undefined) {
    if (positionedTexts.size >= MAX_POSITIONED) positionedTexts.clear();
    let count = 0;
    text = sql.replace(/(\\*)(\?)/g, (_match, escapes: string) => (escapes.length % 2 ? '?' : `$${++count}`));
    positionedTexts.set(sql, text);
  }
  return text;
}

/** The parts of knex's client this uses: its pool and its events. */
interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
  emit(event: string, ...args: unknown[]): boolean;
}

interface PgConnection {
  query(config: { text: string; values: unknown[] }): Promise<unknown>;
  __knexUid?: string;
  __knexTxId?: string;
}

/**
 * Sends a bound statement outside any transaction on a connection of knex's pool, as
 * `knex.raw(sql, values)` does, and answers the driver's result as `raw` answers it: the same
 * pool, connection, text and values, and the same events for whoever listens to knex.
 * Why not knex.raw: a Raw object, a runner, its formatter's scans of the text and two events per
 * statement cost about 40 µs of the event loop, on every statement of every request (issue 53).
 * A statement of a transaction still goes through knex (the transaction owns its connection).
 */
export async function queryDirect(knex: Knex, statement: BoundStatement): Promise<unknown> {
  const client = knex.client as unknown as KnexClient;
  const text = positioned(statement.sql);
  const connection = await client.acquireConnection();
  // knex's events, as its runner emits them, forwarded by its client to every knex instance on it
  // (a few hundred ns when nobody listens): tests count statements and wait for responses by them.
  const query = {
    __knexUid: connection.__knexUid,
    __knexTxId: connection.__knexTxId,
    method: 'raw',
    sql: text,
    bindings: statement.values,
  };
  try {
    client.emit('query', query);
    const result = await connection.query({ text, values: statement.values });
    client.emit('query-response', result, query);
    return result;
  } catch (error) {
    client.emit('query-error', error, query);
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A binding knex.raw hands to the driver as it is, one value for one `?` (knex refuses undefined). */
const plainValue = (value: unknown): boolean => value !== undefined && scalar(value);

/**
 * `knex.raw(sql, bindings)` for a hand-written statement (the webhook intake and claims, the
 * relay's takes, the heartbeat): sent by queryDirect when `knex` is no transaction, the text has
 * no `??` identifier and every binding is one value knex would hand to the driver as it is; else
 * by knex itself, so a list, a raw fragment or an undefined binding means what it means to knex.
 * Answers the driver's result, as raw does.
 */
export async function rawQuery<Row extends object = object>(
  knex: Knex,
  sql: string,
  bindings: readonly unknown[] = [],
): Promise<{ rows: Row[]; rowCount: number | null }> {
  if (knex.isTransaction || sql.includes('??') || !bindings.every(plainValue))
    return knex.raw(sql, bindings as Knex.RawBinding[]);
  return (await queryDirect(knex, { sql, values: [...bindings] })) as { rows: Row[]; rowCount: number | null };
}
