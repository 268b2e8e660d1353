import { Kind, parse, valueFromASTUntyped, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';
import type { FastifyRequest } from 'fastify';

export interface RootField {
  name: string;
  /** Arguments with variables substituted (a limit may be keyed by one: the token endpoint's code). */
  args: Record<string, unknown>;
}

export interface OperationSummary {
  type: 'query' | 'mutation' | 'subscription';
  rootFields: string[];
  fields: RootField[];
}

const cache = new Map<string, DocumentNode | null>();
const CACHE_LIMIT = 1000;

function parsed(query: string): DocumentNode | null {
  if (cache.has(query)) return cache.get(query)!;
  let document: DocumentNode | null;
  try {
    document = parse(query);
  } catch {
    document = null;
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(query, document);
  return document;
}

/** Which operation a request runs and its root fields, for rate-limit classes; null when malformed. */
export function inspectOperation(request: FastifyRequest): OperationSummary | null {
  const source = (request.method === 'GET' ? request.query : request.body) as { query?: unknown; operationName?: unknown; variables?: unknown } | undefined;
  if (!source || typeof source.query !== 'string') return null;
  const document = parsed(source.query);
  if (!document) return null;
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = typeof source.operationName === 'string' ? operations.find((o) => o.name?.value === source.operationName) : operations[0];
  if (!operation) return null;
  const selected = operation.selectionSet.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD);
  const variables = typeof source.variables === 'object' && source.variables !== null ? (source.variables as Record<string, unknown>) : {};
  const fields = selected.map((field) => ({
    name: field.name.value,
    args: Object.fromEntries((field.arguments ?? []).map((arg) => [arg.name.value, valueFromASTUntyped(arg.value, variables)])),
  }));
  return { type: operation.operation, rootFields: fields.map((field) => field.name), fields };
}
