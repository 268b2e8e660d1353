/**
 * GraphQL half of the fuzzer: operations on every root field of the supergraph (from
 * introspection, so new fields are fuzzed without a change here) with random arguments, valid-ish
 * and junk, and a selection of the result's fields.
 */
import fc from 'fast-check';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { ERROR_CODES } from '@gateway/kernel';
import { arbitraryFor, junkValue, type Known } from './values';

export interface GraphQLRootField {
  kind: 'query' | 'mutation';
  name: string;
  field: GraphQLField<unknown, unknown>;
  target: string;
}

/** graphql's introspection query with type references 4 deep ([T!]! needs 3), inside the router's depth limit. */
function introspectionQuery(): string {
  const query = getIntrospectionQuery();
  const shallow =
    'fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }';
  return `${query.slice(0, query.indexOf('fragment TypeRef'))}${shallow}`;
}

/** The supergraph's API schema, by introspection through /graphql (on outside production). */
export async function loadSchema(graphqlUrl: string, headers: Record<string, string>): Promise<GraphQLSchema> {
  const response = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: introspectionQuery() }),
  });
  const body = (await response.json()) as any;
  if (!body.data) throw new Error(`introspection failed: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
  return buildClientSchema(body.data);
}

export function rootFieldsOf(schema: GraphQLSchema): GraphQLRootField[] {
  const fields: GraphQLRootField[] = [];
  for (const [kind, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const)
    for (const field of Object.values(type?.getFields() ?? {}))
      if (!field.name.startsWith('_'))
        fields.push({ kind, name: field.name, field, target: `graphql ${kind} ${field.name}` });
  return fields;
}

/** A GraphQL literal of a JSON value (object keys unquoted), for junk in any position. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '0';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([key]) =>
    /^[_A-Za-z][_0-9A-Za-z]*$/.test(key),
  );
  return `{${entries.map(([key, item]) => `${key}: ${literal(item)}`).join(', ')}}`;
}

/** snake_case hint names from camelCase arguments (`bankHandle` -> `bank_handle`). */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A value of an input type: right type with realistic content, or (junk) anything. */
function inputArb(type: GraphQLInputType, name: string, known: Known, depth: number): fc.Arbitrary<string> {
  if (isNonNullType(type)) return inputArb(type.ofType, name, known, depth);
  if (isListType(type))
    return fc
      .array(inputArb(type.ofType, name, known, depth + 1), { maxLength: 3 })
      .map((items) => `[${items.join(', ')}]`);
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((value) => value.name));
  if (isInputObjectType(type)) {
    if (depth > 4) return fc.constant('{}');
    const fields = Object.values(type.getFields());
    const entries = Object.fromEntries(
      fields.map((field) => [field.name, inputArb(field.type, field.name, known, depth + 1)]),
    );
    const required = fields.filter((field) => isNonNullType(field.type)).map((field) => field.name);
    return fc.record(entries, { requiredKeys: required }).map(
      (record) =>
        `{${Object.entries(record)
          .map(([key, value]) => `${key}: ${value}`)
          .join(', ')}}`,
    );
  }
  const scalar = getNamedType(type).name;
  const schema =
    scalar === 'Int' || scalar === 'SafeInt'
      ? { type: 'integer' }
      : scalar === 'Float'
        ? { type: 'number' }
        : scalar === 'Boolean'
          ? { type: 'boolean' }
          : scalar === 'DateTime'
            ? { type: 'string', format: 'date-time' }
            : scalar === 'JSON' || scalar === 'JSONObject'
              ? { type: 'object' }
              : { type: 'string' };
  return arbitraryFor(schema, known, snake(name)).map(literal);
}

/** Scalar fields of an output type, nested objects to `depth`. */
function selection(type: GraphQLOutputType, depth: number): string {
  const named = getNamedType(type);
  if (isScalarType(named) || isEnumType(named)) return '';
  if (isUnionType(named) || isInterfaceType(named)) return ' { __typename }';
  if (!isObjectType(named)) return '';
  const fields = Object.values(named.getFields()).filter((field) => !field.args.some((arg) => isNonNullType(arg.type)));
  const parts = fields
    .map((field) => {
      const inner = getNamedType(field.type);
      if (isScalarType(inner) || isEnumType(inner)) return field.name;
      return depth > 0 ? `${field.name}${selection(field.type, depth - 1)}` : '';
    })
    .filter((part) => part && !part.endsWith(' {  }'));
  return parts.length ? ` { ${parts.join(' ')} }` : ' { __typename }';
}

/** One document for `root` from `seed`: valid-ish arguments, or some spoilt. */
export function buildOperation(root: GraphQLRootField, known: Known, seed: number): { query: string; note: string } {
  const args = root.field.args;
  const plan = fc.record({
    values: fc.tuple(...args.map((arg) => inputArb(arg.type, arg.name, known, 0)), fc.constant('')),
    mode: fc.constantFrom('valid', 'valid', 'junk-arg', 'missing-arg', 'extra-arg', 'bad-selection'),
    which: fc.nat(),
    junk: junkValue,
    depth: fc.integer({ min: 0, max: 2 }),
  });
  const [p] = fc.sample(plan, { seed, numRuns: 1 });
  const values = args.map((arg, index) => [arg.name, p!.values[index]!] as [string, string]);
  let mode = p!.mode;
  if ((mode === 'junk-arg' || mode === 'missing-arg') && !values.length) mode = 'extra-arg';
  if (mode === 'junk-arg') values[p!.which % values.length]![1] = literal(p!.junk);
  if (mode === 'missing-arg') values.splice(p!.which % values.length, 1);
  if (mode === 'extra-arg') values.push(['fuzzExtra', literal(p!.junk)]);
  const argText = values.length ? `(${values.map(([name, value]) => `${name}: ${value}`).join(', ')})` : '';
  const fields = mode === 'bad-selection' ? ' { noSuchField }' : selection(root.field.type, p!.depth);
  return { query: `${root.kind} Fuzz { ${root.name}${argText}${fields} }`, note: mode };
}

/** The problems with one GraphQL answer: 5xx is counted by the caller; codes outside the spec, stack traces. */
export function checkGraphQLAnswer(status: number, text: string): string[] {
  const problems: string[] = [];
  if (/\n\s+at .+:\d+:\d+/.test(text) || /"stacktrace"/.test(text)) problems.push('stack trace in the answer');
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `not JSON (${status})`];
  }
  const errors: any[] = Array.isArray(body?.errors) ? body.errors : [];
  if (status >= 400 && !errors.length) problems.push(`status ${status} without errors`);
  for (const error of errors) {
    const code = error?.extensions?.code;
    if (typeof code !== 'string' || !(code in ERROR_CODES))
      problems.push(`extensions.code ${JSON.stringify(code)} not a spec code: ${String(error?.message).slice(0, 200)}`);
  }
  return problems;
}
