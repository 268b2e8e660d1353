import { createHash } from 'node:crypto';

/**
 * Statements sent with parameters (the hand-written ones: the webhook intake and recording, the
 * relay's confirmations, the claims) are sent as named prepared statements, one per distinct
 * text on each connection. PostgreSQL then parses each once per connection and, once it has seen
 * that a generic plan costs no more than a custom one, plans it once too. Issue 53's attribution
 * showed why it matters: the webhook recording statement spent ~1.3 ms parsing and ~6.6 ms in
 * bind (planning, for an unnamed statement) against ~1.6 ms executing.
 *
 * Statements without parameters are left alone: MikroORM writes its values into the text, so
 * each of its statements is new and preparing it would only fill the connection's memory.
 */

/** A bound on each connection's prepared statements: the texts are the code's own, so this is never reached in practice. */
const MAX_PREPARED_PER_CONNECTION = 200;

/** PostgreSQL's "cached plan must not change result type": a migration changed what a `*` returns. */
const PLAN_RESULT_CHANGED = '0A000';

type Callback = (error: unknown, result?: unknown) => void;

interface PgQueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
  submit?: unknown;
  [option: string]: unknown;
}

interface PgConnection {
  query(config: unknown, values?: unknown, callback?: unknown): unknown;
}

/** Statement names by text, shared by every connection: hashing the text anew was a hash per statement sent. */
const names = new Map<string, string>();
/** A bound on the names remembered: the texts are the code's own, so this is never reached in practice. */
const MAX_NAMES = 2_000;

const nameOf = (text: string): string => {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear();
    name = `gw_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
};

/**
 * Makes `connection` (a `pg` client) prepare its statements with parameters, as above. A
 * statement whose prepared plan PostgreSQL refuses after a schema change is sent unnamed from
 * then on, on that connection.
 */
export function prepareParameterizedStatements(connection: PgConnection): void {
  const query = connection.query;
  const prepared = new Set<string>();
  const unprepared = new Set<string>();
  connection.query = function preparedQuery(this: PgConnection, config: unknown, values?: unknown, callback?: unknown) {
    const asConfig: PgQueryConfig | undefined =
      typeof config === 'string'
        ? { text: config, values: Array.isArray(values) ? values : undefined }
        : config !== null && typeof config === 'object' && typeof (config as PgQueryConfig).submit !== 'function'
          ? (config as PgQueryConfig)
          : undefined;
    const done = typeof values === 'function' ? (values as Callback) : (callback as Callback | undefined);
    const text = asConfig?.text;
    if (
      !asConfig ||
      typeof text !== 'string' ||
      asConfig.name !== undefined ||
      !(asConfig.values?.length ?? 0) ||
      unprepared.has(text) ||
      (!prepared.has(text) && prepared.size >= MAX_PREPARED_PER_CONNECTION)
    )
      return query.call(this, config, values, callback);

    prepared.add(text);
    const named = { ...asConfig, name: nameOf(text) };
    const forget = (error: unknown) => {
      if ((error as { code?: string } | null)?.code === PLAN_RESULT_CHANGED) unprepared.add(text);
    };
    if (done)
      return query.call(this, named, (error: unknown, result?: unknown) => {
        if (error) forget(error);
        done(error, result);
      });
    return (query.call(this, named) as Promise<unknown>).catch((error: unknown) => {
      forget(error);
      throw error;
    });
  };
}
