import { JsonProperty, Utils } from '@mikro-orm/core';

/** A statement as the driver sends it: `?` placeholders (knex numbers them) and their values. */
export interface BoundStatement {
  sql: string;
  values: unknown[];
}

/** A value bound as one parameter as it is (a list, an object and a raw fragment are not). */
export const scalar = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  typeof value === 'string' ||
  typeof value === 'number' ||
  typeof value === 'bigint' ||
  typeof value === 'boolean' ||
  value instanceof Date ||
  ArrayBuffer.isView(value);

/**
 * MikroORM writes a statement's values into its text (Platform.formatQuery), so PostgreSQL parses
 * and plans every statement anew. This keeps them as parameters, with formatQuery's meaning of
 * each `?`: `??` an identifier (written into the text, as there), `\?` a literal question mark, a
 * plain array a list of values (`in (?)`), a plain object or a JSON property's value one JSON
 * value, a raw fragment its SQL. Undefined when a value is one this does not know to bind the
 * same way (empty or nested lists): the caller then lets MikroORM write the values in.
 */
export function boundParameters(
  sql: string,
  params: readonly unknown[],
  quoteIdentifier: (id: string) => string,
): BoundStatement | undefined {
  const values: unknown[] = [];
  let out = '';
  let next = 0;
  let from = 0;
  for (let at = sql.indexOf('?'); at !== -1; at = sql.indexOf('?', from)) {
    if (at > 0 && sql[at - 1] === '\\') {
      out += sql.slice(from, at + 1);
      from = at + 1;
      continue;
    }
    out += sql.slice(from, at);
    if (sql[at + 1] === '?') {
      const id = params[next++];
      if (typeof id !== 'string') return undefined;
      out += quoteIdentifier(id);
      from = at + 2;
      continue;
    }
    if (next >= params.length) return undefined;
    const value = params[next++];
    from = at + 1;
    if (Utils.isRawSql(value)) {
      // A raw fragment (`attempts + 1`) is SQL, written into the text with its own values bound.
      const fragment = boundParameters(value.sql, value.params ?? [], quoteIdentifier);
      if (!fragment) return undefined;
      out += fragment.sql;
      values.push(...fragment.values);
      continue;
    }
    if (Utils.isPlainObject(value) || (value as { [JsonProperty]?: unknown } | null)?.[JsonProperty]) {
      out += '?';
      values.push(JSON.stringify(value));
    } else if (Array.isArray(value)) {
      if (value.length === 0 || !value.every(scalar)) return undefined;
      out += value.map(() => '?').join(', ');
      values.push(...value.map((item) => item ?? null));
    } else if (scalar(value)) {
      out += '?';
      values.push(value ?? null);
    } else return undefined;
  }
  if (next !== params.length) return undefined;
  return { sql: out + sql.slice(from), values };
}
