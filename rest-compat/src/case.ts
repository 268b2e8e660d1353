import { memoized } from '@gateway/kernel';

/**
 * REST speaks snake_case, GraphQL camelCase. Keys are converted generically, in one place each
 * way, so no route renames fields by hand. Only keys of plain objects change: values (IBANs,
 * handles, URLs) are never touched.
 */

// Every request converts the same few hundred field names: each conversion is remembered (the
// memory is bounded, whatever keys clients send).
export const snakeToCamel = memoized(5000, (key) =>
  key.replace(/_([a-z0-9])/g, (_match, next: string) => next.toUpperCase()),
);

export const camelToSnake = memoized(5000, (key) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Fields whose object holds keys the client chose, kept exactly as sent both ways: metadata
 * {"order_id": "42", "orderId": "7"} must come back as it went in.
 */
const VERBATIM_FIELDS: ReadonlySet<string> = new Set(['metadata']);

function convertKeys(value: unknown, convert: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => convertKeys(item, convert));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  // A plain object's own keys (its prototype is Object's or none), without the pairs Object.entries makes.
  for (const key in value) {
    const item = value[key];
    if (typeof item !== 'object' || item === null) out[convert(key)] = item;
    else out[convert(key)] = VERBATIM_FIELDS.has(key) && isPlainObject(item) ? { ...item } : convertKeys(item, convert);
  }
  return out;
}

type SnakeToCamel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<SnakeToCamel<Tail>>}`
  : S;

/** The camelCase view of a snake_case type (what route variable mappings receive). */
export type CamelKeys<T> = T extends readonly (infer Item)[]
  ? CamelKeys<Item>[]
  : T extends Record<string, unknown>
    ? { [K in keyof T as K extends string ? SnakeToCamel<K> : K]: CamelKeys<T[K]> }
    : T;

export const keysToCamel = <T>(value: T): CamelKeys<T> => convertKeys(value, snakeToCamel) as CamelKeys<T>;

export const keysToSnake = (value: unknown): unknown => convertKeys(value, camelToSnake);
