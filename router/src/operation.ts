import { memoized } from '@gateway/kernel';
import {
  Kind,
  parse,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** A request's GraphQL parameters: the JSON body of a POST, the query string of a GET. */
export interface OperationSource {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
}

export interface RootField {
  name: string;
  /** Arguments with variables substituted (a limit may be keyed by one: the token endpoint's code). */
  args: Record<string, unknown>;
  /**
   * Points one selection of it costs, the bank-core calls under it included (core-cost.ts);
   * unset: 1, a root field's price.
   */
  points?: number;
}

export interface OperationSummary {
  type: 'query' | 'mutation' | 'subscription';
  /** The operation's name as the document gives it (undefined: anonymous). */
  name: string | undefined;
  /** One entry per root field selection: every alias, and fields in fragments at the root, count. Shared by the document's requests. */
  rootFields: readonly string[];
  fields: RootField[];
  /** The selections behind `fields`, in the same order, and the document's fragments: what the core-call pricing walks. */
  selections: readonly FieldNode[];
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

/**
 * Tokens a document may hold (Apollo parses with the same cap: 400 VALIDATION_ERROR beyond it): the
 * edge parses every document before any limit, so an oversized one is not parsed to the end here.
 */
export const MAX_TOKENS = 5000;

/** A document parsed once (null: a syntax error, which Apollo reports). */
const parsed = memoized(1000, (query): DocumentNode | null => {
  try {
    return parse(query, { maxTokens: MAX_TOKENS });
  } catch {
    return null;
  }
});

/**
 * The root field selections of an operation, through inline fragments and fragment spreads
 * (`{ ... on Query { a: resolveAlias(…) } }` runs them all the same). Each selection counts, even
 * two identical ones GraphQL would merge: the cost is what the document asks for. A fragment
 * cycle is refused by graphql's own validation; here it is simply not followed twice.
 */
function rootSelections(
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  seen: Set<string>,
): FieldNode[] {
  return selectionSet.selections.flatMap((selection): FieldNode[] => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return rootSelections(selection.selectionSet, fragments, seen);
    const fragment = fragments.get(selection.name.value);
    if (!fragment || seen.has(fragment.name.value)) return [];
    return rootSelections(fragment.selectionSet, fragments, new Set([...seen, fragment.name.value]));
  });
}

/**
 * The operationName a request asks for when its document has no such operation (GraphiQL can
 * send a stale one). The gateway would throw a code-less error there, which Apollo answers 500.
 */
export function unknownOperationName(source: OperationSource | undefined): string | undefined {
  if (
    !source ||
    typeof source.query !== 'string' ||
    typeof source.operationName !== 'string' ||
    source.operationName === ''
  )
    return undefined;
  const document = parsed(source.query);
  if (!document) return undefined; // a syntax error: Apollo says what it is
  const named = document.definitions.some(
    (d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === source.operationName,
  );
  return named ? undefined : source.operationName;
}

/**
 * Whether a request carries the NUL character (U+0000) in its document or variables. PostgreSQL
 * text cannot hold it ("invalid byte sequence"): refused here, once for every subgraph, as bad
 * input, instead of a 500 wherever such a value would reach a query.
 */
export function carriesNul(source: OperationSource | undefined): boolean {
  if (!source) return false;
  if (typeof source.query === 'string' && textCarriesNul(source.query)) return true;
  return typeof source.variables === 'string' ? textCarriesNul(source.variables) : valueCarriesNul(source.variables);
}

/**
 * The escape \u0000 in GraphQL or JSON text, unless its backslash is itself escaped (`\\u0000`
 * is the six characters, which a description may well hold).
 */
const ESCAPED_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;

const textCarriesNul = (text: string): boolean => text.includes('\0') || ESCAPED_NUL.test(text);

/** Walks parsed variables (keys and strings) without recursion: a deeply nested value cannot overflow the stack. */
function valueCarriesNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (next.includes('\0')) return true;
    } else if (Array.isArray(next)) for (const inner of next) pending.push(inner);
    else if (next && typeof next === 'object')
      for (const key in next) {
        if (!Object.hasOwn(next, key)) continue;
        if (key.includes('\0')) return true;
        pending.push((next as Record<string, unknown>)[key]);
      }
  }
  return false;
}

/** What a document's operation is, whatever the variables: found once per parsed document (the LRU above). */
interface OperationShape {
  operation: OperationDefinitionNode;
  selections: FieldNode[];
  fragments: Map<string, FragmentDefinitionNode>;
  rootFields: string[];
}

// Every request of a route sends the same document: its operation, fragments and root selections
// are looked up once per parsed document and operation name, not walked again per request
// (keyed by the parsed document, which `parsed` keeps one of per text; gone with it).
const shapes = new WeakMap<DocumentNode, Map<string | undefined, OperationShape | null>>();

function shapeOf(document: DocumentNode, operationName: string | undefined): OperationShape | null {
  let byName = shapes.get(document);
  if (!byName) shapes.set(document, (byName = new Map()));
  let shape = byName.get(operationName);
  if (shape === undefined) {
    shape = findShape(document, operationName);
    // Bounded by the names a client sends for one document: a few, unless it invents them.
    if (byName.size < 16) byName.set(operationName, shape);
  }
  return shape;
}

function findShape(document: DocumentNode, operationName: string | undefined): OperationShape | null {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation =
    operationName !== undefined ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!operation) return null;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  const selections = rootSelections(operation.selectionSet, fragments, new Set());
  return { operation, selections, fragments, rootFields: selections.map((field) => field.name.value) };
}

/** Which operation a request runs and its root fields, for rate-limit classes; null when malformed. */
export function inspectOperation(source: OperationSource | undefined): OperationSummary | null {
  if (!source || typeof source.query !== 'string') return null;
  const document = parsed(source.query);
  if (!document) return null;
  const shape = shapeOf(document, typeof source.operationName === 'string' ? source.operationName : undefined);
  if (!shape) return null;
  const variables =
    typeof source.variables === 'object' && source.variables !== null
      ? (source.variables as Record<string, unknown>)
      : {};
  // Only the arguments depend on the request (a limit may be keyed by one: the token endpoint's code).
  const fields = shape.selections.map((field): RootField => {
    const args: Record<string, unknown> = {};
    for (const arg of field.arguments ?? []) args[arg.name.value] = valueFromASTUntyped(arg.value, variables);
    return { name: field.name.value, args };
  });
  return {
    type: shape.operation.operation,
    name: shape.operation.name?.value,
    rootFields: shape.rootFields,
    fields,
    selections: shape.selections,
    fragments: shape.fragments,
  };
}
