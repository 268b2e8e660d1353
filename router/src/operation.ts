import { Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { FastifyRequest } from 'fastify';

export interface OperationSummary {
  type: 'query' | 'mutation' | 'subscription';
  rootFields: string[];
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
  const source = (request.method === 'GET' ? request.query : request.body) as { query?: unknown; operationName?: unknown } | undefined;
  if (!source || typeof source.query !== 'string') return null;
  const document = parsed(source.query);
  if (!document) return null;
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = typeof source.operationName === 'string' ? operations.find((o) => o.name?.value === source.operationName) : operations[0];
  if (!operation) return null;
  const rootFields = operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
  return { type: operation.operation, rootFields };
}
