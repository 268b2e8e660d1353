import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { VariableDefinitions } from '@apollo/federation-internals';
import {
  evaluateCondition,
  type FetchNode,
  type PlanNode,
  type QueryPlanSelectionNode,
  type ResponsePath,
} from '@apollo/query-planner';
// Apollo's own merge and type test, so that entities are merged and matched exactly as its executor does.
import { isObjectOfType } from '@apollo/gateway/dist/dataRewrites';
import { deepMerge } from '@apollo/gateway/dist/utilities/deepMerge';

type ResultMap = Record<string, unknown>;

/** One subgraph fetch's answer: its data and its errors as the subgraph wrote them (a failed call: an error, no data). */
export interface FetchAnswer {
  data?: ResultMap | null;
  errors?: readonly GraphQLFormattedError[];
}

/** Sends one fetch of the plan with the variables it uses (representations included) and answers what came back. */
export type SendFetch = (fetch: FetchNode, variables: Record<string, unknown>) => Promise<FetchAnswer>;

/** Where a plan node works: a path into the result, and the object (or flattened objects) found there. */
interface Cursor {
  path: ResponsePath;
  data: ResultMap | ResultMap[];
}

/**
 * Whether the router's executor runs this plan: fetches in sequence, in parallel and flattened
 * into entities at a path, and branches on a variable (@skip, @include). A plan with anything else
 * (@defer, a rewrite of keys or values, a subscription) is left to `@apollo/gateway`'s executor,
 * which covers them all.
 */
export function runsOnOwnExecutor(node: PlanNode): boolean {
  switch (node.kind) {
    case 'Sequence':
    case 'Parallel':
      return node.nodes.every(runsOnOwnExecutor);
    case 'Flatten':
      return node.path.every((step) => typeof step === 'string') && runsOnOwnExecutor(node.node);
    case 'Condition':
      return [node.ifClause, node.elseClause].every((branch) => !branch || runsOnOwnExecutor(branch));
    case 'Fetch':
      return !(
        node.hasDefers ||
        node.inputRewrites?.length ||
        node.outputRewrites?.length ||
        node.contextRewrites?.length
      );
    default:
      return false;
  }
}

/**
 * Runs a query plan (issue 32: the cross-subgraph path without the gateway's executor, whose
 * tracing spans, per-request operation rebuild and request context cost the router more CPU than
 * the fetches themselves). The semantics are `@apollo/gateway`'s executeQueryPlan's: a sequence
 * runs in order, a parallel node at once, a flatten moves to the entities at its path, a condition
 * takes the branch its variable (or the variable's default) names; an entity
 * fetch sends one representation per entity that has a `__typename` (nulls skipped) and merges
 * `_entities` back in order; a subgraph's errors are kept with their paths moved under the fetch's
 * place in the result (`_entities[i]` becomes entity i's own path) and a code
 * (DOWNSTREAM_SERVICE_ERROR when it gave none). A failed fetch is an error; the rest of the plan
 * still runs, as in Apollo's. Answers the merged data, before shaping to the client's selection.
 */
export async function executePlan(
  node: PlanNode,
  send: SendFetch,
  variables: Record<string, unknown>,
  definitions: VariableDefinitions,
  supergraph: GraphQLSchema,
): Promise<{ data: ResultMap; errors: GraphQLFormattedError[] }> {
  const data: ResultMap = Object.create(null) as ResultMap;
  const errors: GraphQLFormattedError[] = [];

  const run = async (step: PlanNode, cursor: Cursor | undefined): Promise<void> => {
    if (!cursor) return; // nothing at this path (a null parent): nothing to fetch under it
    switch (step.kind) {
      case 'Sequence':
        for (const child of step.nodes) await run(child, cursor);
        return;
      case 'Parallel':
        await Promise.all(step.nodes.map((child) => run(child, cursor)));
        return;
      case 'Flatten':
        return run(step.node, moveInto(cursor, step.path as string[]));
      case 'Fetch':
        return fetchInto(step, cursor);
      case 'Condition': {
        const branch = evaluateCondition(step, definitions, variables) ? step.ifClause : step.elseClause;
        return branch ? run(branch, cursor) : undefined;
      }
      default:
        throw new Error(`plan node ${step.kind} is not run here (runsOnOwnExecutor)`);
    }
  };

  const fetchInto = async (fetch: FetchNode, cursor: Cursor): Promise<void> => {
    const entities = Array.isArray(cursor.data) ? cursor.data.filter((entity) => entity != null) : [cursor.data];
    if (entities.length === 0) return;
    const used: Record<string, unknown> = {};
    for (const name of fetch.variableUsages ?? [])
      if (Object.hasOwn(variables, name) && variables[name] !== undefined) used[name] = variables[name];

    if (!fetch.requires) {
      const answer = await send(fetch, used);
      keepErrors(answer, fetch, (path) => [...cursor.path, ...path]);
      for (const entity of entities) deepMerge(entity, answer.data);
      return;
    }

    const representations: ResultMap[] = [];
    const entityOf: number[] = [];
    entities.forEach((entity, index) => {
      const representation = selected(supergraph, entity, fetch.requires!);
      if (representation?.__typename) {
        representations.push(representation);
        entityOf.push(index);
      }
    });
    if (representations.length === 0) return;
    const answer = await send(fetch, { ...used, representations });
    keepErrors(answer, fetch, (path) => {
      const index = path[1];
      if (path[0] !== '_entities' || typeof index !== 'number') return [...cursor.path, ...path];
      return [...entityPaths(cursor.path, data)[entityOf[index]!]!, ...path.slice(2)];
    });
    const received = answer.data?._entities;
    if (answer.data == null) return;
    if (!Array.isArray(received) || received.length !== representations.length) {
      errors.push({
        message: `Expected "data._entities" from ${fetch.serviceName} to contain ${representations.length} elements`,
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
      return;
    }
    received.forEach((entity: ResultMap | null, i) => {
      const existing = entities[entityOf[i]!]!;
      if (entity && !entity.__typename) entity.__typename = existing.__typename;
      deepMerge(existing, entity);
    });
  };

  const keepErrors = (answer: FetchAnswer, fetch: FetchNode, moved: (path: ResponsePath) => ResponsePath) => {
    for (const error of answer.errors ?? [])
      errors.push({
        ...error,
        message: error.message || `Error while fetching subquery from service "${fetch.serviceName}"`,
        path: error.path ? moved(error.path as ResponsePath) : undefined,
        extensions: { ...error.extensions, code: error.extensions?.code ?? 'DOWNSTREAM_SERVICE_ERROR' },
      });
  };

  await run(node, { path: [], data });
  return { data, errors };
}

/** The objects at `path` under the cursor (lists flattened, nulls kept for the fetch to skip); undefined: none. */
function moveInto(cursor: Cursor, path: string[]): Cursor | undefined {
  const found = flattened(cursor.data, path);
  return found == null ? undefined : { path: [...cursor.path, ...path], data: found as ResultMap | ResultMap[] };
}

function flattened(value: unknown, path: string[]): unknown {
  if (path.length === 0 || value == null) return value;
  const [head, ...rest] = path;
  if (head === '@') return (value as unknown[]).flatMap((element) => flattened(element, rest));
  return flattened(Object.hasOwn(value as object, head!) ? (value as ResultMap)[head!] : undefined, rest);
}

/** Each entity's own path under a flatten path (`@` replaced by indices), in the order `flattened` lists them; nulls left out. */
function entityPaths(path: ResponsePath, root: unknown): ResponsePath[] {
  const paths: ResponsePath[] = [];
  const walk = (at: ResponsePath, rest: ResponsePath, value: unknown) => {
    if (value == null) return;
    const [head, ...tail] = rest;
    if (head === undefined) paths.push(at);
    else if (head === '@') (value as unknown[]).forEach((element, i) => walk([...at, i], tail, element));
    else if (Object.hasOwn(value as object, head)) walk([...at, head], tail, (value as ResultMap)[head]);
  };
  walk([], path, root);
  return paths;
}

/** The representation of an entity: the fields the fetch `requires` (its key), as Apollo's executor takes them. */
function selected(
  schema: GraphQLSchema,
  source: ResultMap | null,
  selections: QueryPlanSelectionNode[],
): ResultMap | null {
  if (source === null) return null;
  const result: ResultMap = Object.create(null) as ResultMap;
  for (const selection of selections) {
    if (selection.kind === 'Field') {
      const name = selection.alias ?? selection.name;
      const value = source[name];
      // A missing input: the entity was nulled by an error already reported; it is not sent.
      if (!Object.hasOwn(source, name) || value === undefined) return null;
      const inner = selection.selections;
      result[name] = Array.isArray(value)
        ? value.map((element: ResultMap | null) => (inner ? selected(schema, element, inner) : element))
        : inner
          ? selected(schema, value as ResultMap | null, inner)
          : value;
    } else if (selection.typeCondition && isObjectOfType(schema, source, selection.typeCondition)) {
      deepMerge(result, selected(schema, source, selection.selections));
    }
  }
  return result;
}
