/**
 * Values for the fuzzer: fast-check arbitraries built from the OpenAPI document's JSON Schemas
 * (valid shapes, with realistic values for well-known field names so requests reach past
 * validation to the resolvers), and the junk the mutations put in their place.
 */
import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

/** Records the running platform knows (demo data and what the fuzzer learned), by kind. */
export interface Known {
  bankHandles: string[];
  ibans: string[];
  aliases: string[];
  /** Ids seen in answers, by field name (merchant_id, session_id, consent_id, id, …). */
  ids: Map<string, Set<string>>;
  urls: string[];
}

export const addKnownId = (known: Known, name: string, value: string): void => {
  const set = known.ids.get(name) ?? new Set<string>();
  if (set.size < 200) set.add(value);
  known.ids.set(name, set);
};

const idsNamed = (known: Known, name: string): string[] => [...(known.ids.get(name) ?? [])];
const allIds = (known: Known): string[] => [...known.ids.values()].flatMap((set) => [...set]);

const pick = <T>(values: T[], otherwise: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  values.length ? fc.oneof(fc.constantFrom(...values), otherwise) : otherwise;

/** Strings that have broken parsers, validators and databases before. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  "'; DROP TABLE x; --",
  '%00',
  '%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'é',
  'Ω≈ç√∫',
  '𝕿𝖍𝖊 𝖖𝖚𝖎𝖈𝖐',
  '👩‍👩‍👧‍👦',
  '\u202eRTL',
  '\ud800',
  'ﷺ',
  'a'.repeat(256),
  'x'.repeat(5000),
];

/** IBANs that are almost right: wrong checksum, country, length, characters. */
const BAD_IBANS = [
  'LY00002001000000000000001',
  'LY83002048000020100120361',
  'XX00123',
  'LY',
  'ly83002048000020100120361',
  'LY83 0020 4800 0020 1001 2036 1',
  'DE89370400440532013000',
  'LY8300204800002010012036€',
  '0'.repeat(40),
];
const BAD_DATES = [
  '2026-13-45',
  '2026-02-30T00:00:00Z',
  '99999-01-01T00:00:00Z',
  '0000-00-00',
  'yesterday',
  '1700000000',
  '2026-01-01T25:61:61Z',
  '-000001-01-01T00:00:00Z',
];
const BAD_NUMBERS = [
  -1,
  0,
  0.5,
  -0.5,
  1.5,
  1e308,
  -1e308,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  12_500.001,
  Number.MAX_SAFE_INTEGER,
  1e21,
];

/** Any JSON value a client could send in place of the expected one. */
export const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(...NASTY_STRINGS, ...BAD_IBANS, ...BAD_DATES, ...BAD_NUMBERS, null, true, false, [], {}),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxKeys: 3 }),
  fc.constant('z'.repeat(200_000)),
);

/** A junk string: path segments, query values, headers. */
export const junkString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS, ...BAD_IBANS, ...BAD_DATES, ...BAD_NUMBERS.map(String)),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 3000, minLength: 1000 }),
);

const isoDate = fc
  .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** Realistic values for well-known field names, so a valid request reaches the resolver. */
function byName(name: string, known: Known): fc.Arbitrary<unknown> | undefined {
  const n = name.toLowerCase();
  const handles = pick(known.bankHandles, fc.stringMatching(/^[a-z][a-z0-9]{2,15}$/));
  if (n === 'handle' || n === 'bank_handle' || n === 'bank') return handles;
  if (n.endsWith('iban')) return pick(known.ibans, fc.constantFrom(...BAD_IBANS));
  if (n === 'alias' || n === 'npt_handle' || n === 'payer_alias')
    return pick(known.aliases, fc.stringMatching(/^[a-z][a-z0-9_]{2,20}$/));
  if (n === 'amount' || n.endsWith('_amount') || n === 'min_amount' || n === 'max_amount')
    return fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 10_000_000 }));
  // Destinations and payers: { type: alias | iban, value }.
  if (n === 'type') return fc.constantFrom('alias', 'iban');
  if (n === 'value') return pick([...known.aliases, ...known.ibans], fc.constant('nobody'));
  if (n === 'code_challenge') return fc.stringMatching(/^[A-Za-z0-9_-]{43}$/);
  if (n === 'code_verifier') return fc.stringMatching(/^[A-Za-z0-9._~-]{43,60}$/);
  if (n === 'currency') return fc.constantFrom('LYD', 'LYD', 'USD', 'EUR');
  if (n === 'country') return fc.constant('LY');
  if (n.endsWith('_url') || n === 'url' || n === 'redirect_uri')
    return pick(known.urls, fc.constantFrom('https://example.com/callback', 'http://127.0.0.1:9/x'));
  if (n === 'redirect_uris')
    return fc.array(pick(known.urls, fc.constant('https://tpp.example/callback')), { minLength: 1, maxLength: 2 });
  if (n.endsWith('email')) return fc.constantFrom('ops@example.ly', 'a@b.co');
  if (n === 'phone') return fc.stringMatching(/^\+2189[1-5][0-9]{7}$/);
  if (n === 'otp') return fc.constantFrom('111111', '222222', '333333', '444444', '000000');
  if (n === 'institution_code') return fc.stringMatching(/^[0-9]{3}$/);
  if (
    n.endsWith('_at') ||
    n === 'from' ||
    n === 'to' ||
    n === 'from_date' ||
    n === 'to_date' ||
    n === 'expiration' ||
    n === 'expires'
  )
    return isoDate;
  if (n === 'limit') return fc.integer({ min: 1, max: 100 });
  if (n === 'grant_type') return fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials');
  if (n === 'scopes' || n === 'permissions' || n === 'ob_scopes_supported')
    return fc.subarray(['accounts:read', 'balances:read', 'transactions:read', 'payments:write'], { minLength: 1 });
  if (n === 'code_challenge_method') return fc.constantFrom('S256', 'S256', 'S256', 'plain');
  if (n.endsWith('_id') || n === 'id' || n === 'cursor') {
    const exact = idsNamed(known, n);
    const any = allIds(known);
    return exact.length || any.length
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...(exact.length ? exact : any)) },
          fc.constantFrom(...(any.length ? any : ['x'])),
        )
      : undefined;
  }
  return undefined;
}

/** A string for a JSON Schema string (formats, patterns, lengths). */
function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
  if (schema.format === 'date-time') return isoDate;
  if (schema.format === 'date') return isoDate.map((date) => date.slice(0, 10));
  if (schema.format === 'uuid') return fc.uuid();
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern JavaScript cannot compile: fall through to plain strings.
    }
  }
  const minLength = schema.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.min(schema.maxLength ?? minLength + 20, minLength + 40) });
}

/** A value valid for `schema`; `name` is the property it is for, `depth` bounds recursion. */
export function arbitraryFor(
  schema: JsonSchema | undefined,
  known: Known,
  name = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    // Nullable fields: mostly the value, sometimes null.
    const arbs = alternatives.map((alternative: JsonSchema) => ({
      weight: alternative.type === 'null' ? 1 : 4,
      arbitrary: arbitraryFor(alternative, known, name, depth + 1),
    }));
    return fc.oneof(...arbs);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length)
    return arbitraryFor(Object.assign({}, ...schema.allOf), known, name, depth + 1);
  const hinted = name ? byName(name, known) : undefined;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (hinted && type !== 'object') return hinted;
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER);
      const max = Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER);
      return fc.integer({
        min: Math.min(min, 1_000_000),
        max: Math.max(Math.min(max, 1_000_000), Math.min(min, 1_000_000)),
      });
    }
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(arbitraryFor(schema.items, known, name, depth + 1), {
        minLength,
        maxLength: Math.min(schema.maxItems ?? minLength + 3, minLength + 3),
      });
    }
    case 'object': {
      const properties: Record<string, JsonSchema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const entries = Object.entries(properties).map(
        ([key, property]) => [key, arbitraryFor(property, known, key, depth + 1)] as const,
      );
      return fc.record(Object.fromEntries(entries), { requiredKeys: [...required].filter((key) => key in properties) });
    }
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  }
}

/** How one valid value is spoilt. */
export type Mutation =
  | { kind: 'replace-field'; pathIndex: number; junk: unknown }
  | { kind: 'remove-field'; pathIndex: number }
  | { kind: 'extra-field'; key: string; junk: unknown }
  | { kind: 'huge-string'; pathIndex: number }
  | { kind: 'replace-body'; junk: unknown };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('replace-field' as const), pathIndex: fc.nat(), junk: junkValue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove-field' as const), pathIndex: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('extra-field' as const),
      key: fc.oneof(
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.constantFrom('__proto__', 'constructor', 'id', 'status'),
      ),
      junk: junkValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge-string' as const), pathIndex: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace-body' as const), junk: junkValue }) },
);

/** Every path to a value inside `value` (objects and arrays), e.g. ['destination', 'value']. */
function pathsOf(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return prefix.length ? [prefix] : [];
  const here = prefix.length ? [prefix] : [];
  const children = Array.isArray(value)
    ? value.map((item, index) => pathsOf(item, [...prefix, index]))
    : Object.entries(value).map(([key, item]) => pathsOf(item, [...prefix, key]));
  return [...here, ...children.flat()];
}

function setAt(root: any, path: Array<string | number>, apply: (parent: any, key: string | number) => void): void {
  let parent = root;
  for (const key of path.slice(0, -1)) parent = parent[key];
  apply(parent, path[path.length - 1]!);
}

/** `value` with the mutation applied (a deep copy). */
export function mutate(value: unknown, mutation: Mutation): unknown {
  if (mutation.kind === 'replace-body') return mutation.junk;
  const copy = structuredClone(value) ?? {};
  if (typeof copy !== 'object' || copy === null)
    return mutation.kind === 'extra-field' ? { [mutation.key]: mutation.junk } : copy;
  if (mutation.kind === 'extra-field') {
    Object.defineProperty(copy, mutation.key, {
      value: mutation.junk,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return copy;
  }
  const paths = pathsOf(copy);
  if (!paths.length) return mutation.kind === 'replace-field' ? mutation.junk : copy;
  const path = paths[mutation.pathIndex % paths.length]!;
  setAt(copy, path, (parent, key) => {
    if (mutation.kind === 'remove-field') {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
    } else if (mutation.kind === 'huge-string') parent[key] = 'h'.repeat(300_000);
    else parent[key] = mutation.junk;
  });
  return copy;
}
