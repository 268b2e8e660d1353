import {
  getOperationAST,
  getVariableValues,
  Kind,
  parse,
  print,
  specifiedRules,
  validate,
  type GraphQLFormattedError,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { operationFromDocument, Supergraph, type Operation } from '@apollo/federation-internals';
import { computeResponse } from '@apollo/gateway/dist/resultShaping';
import { QueryPlanner, type FetchNode, type PlanNode } from '@apollo/query-planner';
import type { Agent } from 'undici';
import {
  GatewayError,
  isErrorCode,
  jsonAnswer,
  memoized,
  resultOf,
  type LocalRequest,
  type LocalResponse,
  withHeaders,
} from '@gateway/kernel';
import type { SubgraphEndpoint } from './compose';
import type { OperationSource } from './operation';
import { executePlan, runsOnOwnExecutor, type FetchAnswer, type SendFetch } from './plan-execution';
import { subgraphCall, type SharedFetches, type SubgraphCaller } from './subgraph-call';

/**
 * How the router answers an operation without Apollo: `whole`, one subgraph's answer as it is
 * written; `plan`, its own run of the gateway's plan (plan-execution.ts), shaped to the client's
 * selection as the gateway shapes it.
 */
type Route =
  | {
      kind: 'whole';
      subgraph: string;
      /** The plan's fetch: the subgraph's operation and the variables it uses. */
      fetch: FetchNode;
      /** The client's operation, whose variables are checked before anything is sent. */
      operation: OperationDefinitionNode;
    }
  | {
      kind: 'plan';
      /** The subgraphs it asks, in plan order, joined by "+": its label in the metrics. */
      subgraph: string;
      node: PlanNode;
      operation: OperationDefinitionNode;
      /** The client's operation as the gateway's result shaping reads it. */
      shaping: Operation;
    };

export interface ForwarderOptions {
  supergraphSdl: string;
  subgraphs: SubgraphEndpoint[];
  /** The router's own validation rules (depth, fields, armor's caps), as Apollo runs them. */
  validationRules: readonly ValidationRule[];
  maxTokens: number;
  timeoutMs: number;
  agent: Agent;
  /** The router's error mapping (formatGatewayError), applied to the subgraph's errors as Apollo would. */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** Identical reads in flight share one subgraph call (in-flight.ts), each saved call counted; absent: never shared. */
  shared?: SharedFetches;
}

/** What a forwarded request answers: the HTTP answer, and its outcome for the router's metrics. */
export interface Forwarded extends LocalResponse {
  /** Made for this request, as in Admission: the edge adds the request id and limit headers to them. */
  headers: Record<string, string>;
  outcome: string;
  /** The subgraph that answered it whole, or the subgraphs of the plan run here joined by "+" (its metrics label). */
  subgraph: string;
}

/** Who calls and under which request id: what the gateway would attach to its subgraph fetch. */
export type ForwardCaller = SubgraphCaller;

/**
 * The answer of an operation answered here; undefined (at once, or as the answer) when it is
 * Apollo's to answer.
 * No async layers of its own: each would add promises to every request's path, and each promise
 * costs more with the async hooks MikroORM's AsyncLocalStorage turns on (bench/router-overhead.ts).
 */
export type Forwarder = (
  source: OperationSource | undefined,
  headers: Record<string, string | string[] | undefined>,
  caller: ForwardCaller,
) => Promise<Forwarded | undefined> | undefined;

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Answers an operation past Apollo and the gateway's executor (issue 15: the router's hop; issue
 * 32: across subgraphs too). Most of the platform's traffic is an operation one subgraph answers
 * whole: every rest-compat route and every service call reads or writes one service's data. For
 * them the gateway's work (query plan execution, reshaping the subgraph's answer through the
 * supergraph, Apollo's second serialisation) changes nothing but costs as much as the subgraph's
 * own execution: such an operation is forwarded and its answer sent on as written. An operation
 * across subgraphs runs the gateway's own plan on the router's executor (plan-execution.ts) and is
 * shaped by the gateway's own result shaping: Apollo's request pipeline, its tracing spans and the
 * per-request rebuild of the operation cost more CPU than the fetches.
 *
 * An operation is answered here only when all of these hold, checked once per document (cached):
 * it parses within the router's token cap and passes the router's validation (graphql's rules and
 * the router's depth, field and armor caps) against the API schema; it is no subscription and asks
 * no schema introspection; the gateway's own query planner plans it, either as a single fetch
 * selecting exactly what the client selected (forwarded whole) or as fetches in sequence, in
 * parallel, into entities and on a variable's condition, with no rewrite or @defer (run here). Its variables are
 * checked against the operation's definitions on every request. Anything else (invalid documents,
 * bad variables, introspection, the plans left out) goes through Apollo and the gateway as before,
 * so errors are answered by one code path. Authentication and rate limits have run before either
 * (the router's admission).
 *
 * Each subgraph gets what the gateway would send it: the plan's operation, the variables it uses,
 * the signed principal and the request id, in process or over HTTP, with the same deadline. Its
 * errors pass through the router's formatError, as downstream errors do; a failed call (no answer
 * in time, an answer other than 200: subgraphs answer their GraphQL errors with 200, federation's
 * server.ts) is answered as the gateway answers a failed fetch. Nothing is ever sent twice. A
 * query identical to one in flight (same principal, document and variables) waits for that call's
 * answer instead of making its own, unless sharing is off (ROUTER_SHARE_INFLIGHT_READS).
 */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const supergraph = Supergraph.build(options.supergraphSdl);
  const apiSchema = supergraph.apiSchema();
  const schema = apiSchema.toGraphQLJSSchema();
  // Entity representations are taken on the supergraph's types (`requires` may name @inaccessible ones).
  const supergraphSchema = supergraph.schema.toGraphQLJSSchema();
  const planner = new QueryPlanner(supergraph);
  const rules = [...specifiedRules, ...options.validationRules];
  const calls = new Map(
    options.subgraphs.map((subgraph) => [
      subgraph.name,
      subgraphCall(subgraph.name, subgraph.url, options.timeoutMs, options.agent, options.shared),
    ]),
  );

  const routeOf = (query: string, operationName: string | undefined): Route | null => {
    try {
      // Introspection is the gateway's to answer (the result shaping here has no schema to introspect).
      if (/__schema|__type\b/.test(query)) return null;
      const document = parse(query, { maxTokens: options.maxTokens });
      if (validate(schema, document, rules).length > 0) return null;
      const operation = getOperationAST(document, operationName);
      if (!operation || operation.operation === 'subscription') return null;
      const node = planner.buildQueryPlan(operationFromDocument(apiSchema, document, { operationName })).node;
      if (!node || node.kind === 'Subscription') return null;
      if (node.kind === 'Fetch' && calls.has(node.serviceName) && answersWhole(node, operation))
        return { kind: 'whole', subgraph: node.serviceName, fetch: node, operation };
      const subgraphs = new Set(fetchesOf(node).map((fetch) => fetch.serviceName));
      if (!runsOnOwnExecutor(node) || [...subgraphs].some((name) => !calls.has(name))) return null;
      return {
        kind: 'plan',
        subgraph: [...subgraphs].join('+'),
        node,
        operation,
        shaping: operationFromDocument(apiSchema, document, { operationName, validate: false }),
      };
    } catch {
      return null; // Apollo and the gateway say what is wrong with it
    }
  };

  // Keyed by operation name and document (a name holds no line break). A document sent without a
  // name (every rest-compat route) is its own key: the same string each time, whose hash V8 keeps,
  // where a joined key is a new string to hash on every request.
  const cached = memoized(1000, (key) => {
    const split = key.indexOf('\n');
    return routeOf(key.slice(split + 1), key.slice(0, split) || undefined);
  });
  const cachedUnnamed = memoized(1000, (query) => routeOf(query, undefined));

  const bodyOf = (fetch: FetchNode, variables: Record<string, unknown>) => {
    const body: LocalRequest['body'] = { query: fetch.operation, variables };
    if (fetch.operationName) body.operationName = fetch.operationName;
    return body;
  };

  return (source, headers, caller) => {
    if (!source || typeof source.query !== 'string' || !answersJson(headers.accept)) return undefined;
    if (source.operationName !== undefined && source.operationName !== null && typeof source.operationName !== 'string')
      return undefined;
    const variables = source.variables ?? {};
    if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) return undefined;
    const route = source.operationName
      ? cached(`${source.operationName}\n${source.query}`)
      : cachedUnnamed(source.query);
    if (!route) return undefined;
    if (
      getVariableValues(schema, route.operation.variableDefinitions ?? [], variables as Record<string, unknown>).errors
    )
      return undefined;
    return route.kind === 'whole'
      ? forwardWhole(route, variables as Record<string, unknown>, caller)
      : runPlan(route, variables as Record<string, unknown>, caller);
  };

  function forwardWhole(
    route: Extract<Route, { kind: 'whole' }>,
    variables: Record<string, unknown>,
    caller: ForwardCaller,
  ): Promise<Forwarded> {
    const { fetch } = route;
    const used: Record<string, unknown> = {};
    for (const name of fetch.variableUsages ?? []) if (name in variables) used[name] = variables[name];
    const failed = (error: unknown) => answered(route, { data: null, errors: [failedCall(route.subgraph, error)] });
    let call: Promise<LocalResponse>;
    try {
      call = calls.get(route.subgraph)!(caller, bodyOf(fetch, used), fetch.operationKind === 'query');
    } catch (error) {
      return Promise.resolve(failed(error));
    }
    return call.then((answer) => answeredWhole(route, answer), failed);
  }

  /** The subgraph's answer to an operation it answers whole, as the client gets it. */
  function answeredWhole(route: Extract<Route, { kind: 'whole' }>, answer: LocalResponse): Forwarded {
    if (answer.status !== 200) return answered(route, { data: null, errors: [refusedCall(route.subgraph, answer)] });
    // The usual answer carries no error: sent on as the subgraph made it (its value, or its text
    // parsed once by the caller), the text written only if someone reads it.
    const clean: Forwarded = Object.assign(withHeaders(answer, { 'content-type': JSON_CONTENT_TYPE }), {
      outcome: 'ok',
      subgraph: route.subgraph,
    });
    if (answer.json ? !answer.json.errors?.length : !answer.body.includes('"errors"')) return clean;
    const result = resultOf<FetchAnswer>(answer);
    return result.errors?.length ? answered(route, result) : clean;
  }

  async function runPlan(
    route: Extract<Route, { kind: 'plan' }>,
    variables: Record<string, unknown>,
    caller: ForwardCaller,
  ): Promise<Forwarded> {
    const send: SendFetch = async (fetch, used) => {
      let answer: LocalResponse;
      try {
        answer = await calls.get(fetch.serviceName)!(caller, bodyOf(fetch, used), fetch.operationKind === 'query');
      } catch (error) {
        return { errors: [failedCall(fetch.serviceName, error)] };
      }
      if (answer.status !== 200) return { errors: [refusedCall(fetch.serviceName, answer)] };
      return resultOf<FetchAnswer>(answer);
    };
    const { shaping } = route;
    const { data, errors } = await executePlan(
      route.node,
      send,
      variables,
      shaping.variableDefinitions,
      supergraphSchema,
    );
    const shaped = computeResponse({
      operation: shaping,
      variables,
      input: data,
      introspectionHandling: () => {
        throw new Error('introspection is answered by the gateway (routeOf)');
      },
    });
    if (errors.length) return answered(route, { errors, data: shaped.data });
    // As the gateway answers them: a value the subgraphs left null under a non-null field is
    // reported beside the data, not as an error (clients built on the gateway rely on it).
    const extensions = shaped.errors.length ? { valueCompletion: shaped.errors } : undefined;
    return Object.assign(
      jsonAnswer(
        200,
        { 'content-type': JSON_CONTENT_TYPE },
        extensions ? { data: shaped.data, extensions } : { data: shaped.data },
      ),
      { outcome: 'ok', subgraph: route.subgraph },
    );
  }

  function answered(route: Route, result: FetchAnswer): Forwarded {
    const errors = result.errors?.map((error) => options.formatError(error, error));
    const code = errors?.[0]?.extensions?.code;
    return Object.assign(jsonAnswer(200, { 'content-type': JSON_CONTENT_TYPE }, { ...result, errors }), {
      outcome: !errors?.length ? 'ok' : isErrorCode(code) ? code : 'INTERNAL_ERROR',
      subgraph: route.subgraph,
    });
  }
}

/** Whether the plan's one fetch selects what the client selected (aliases, arguments, directives): its data is the answer. */
function answersWhole(fetch: FetchNode, operation: OperationDefinitionNode): boolean {
  if (fetch.requires?.length || fetch.inputRewrites?.length || fetch.outputRewrites?.length) return false;
  if (fetch.contextRewrites?.length || fetch.hasDefers) return false;
  const sent = parse(fetch.operation).definitions[0];
  return sent?.kind === Kind.OPERATION_DEFINITION && print(sent.selectionSet) === print(operation.selectionSet);
}

function fetchesOf(node: PlanNode): FetchNode[] {
  switch (node.kind) {
    case 'Fetch':
      return [node];
    case 'Flatten':
      return fetchesOf(node.node);
    case 'Sequence':
    case 'Parallel':
      return node.nodes.flatMap(fetchesOf);
    case 'Condition':
      return [node.ifClause, node.elseClause].flatMap((branch) => (branch ? fetchesOf(branch) : []));
    default:
      return [];
  }
}

/** A call that failed (unreachable, or no answer in time): the gateway's answer to a failed fetch. */
function failedCall(subgraph: string, error: unknown): GraphQLFormattedError {
  const failure =
    error instanceof GatewayError
      ? error
      : new GatewayError('SERVICE_UNAVAILABLE', `the ${subgraph} service is unreachable`);
  return { message: failure.message, extensions: { code: failure.code, detail: failure.detail } };
}

/**
 * An answer other than 200: what the gateway's data source makes of it, the fetch failed, an
 * internal error (never sent again: a mutation may have run behind a proxy that timed out).
 */
function refusedCall(subgraph: string, answer: LocalResponse): GraphQLFormattedError {
  return { message: `${subgraph} answered ${answer.status}`, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/**
 * Whether the caller takes the plain JSON answer Apollo gives by default: no Accept, or one naming
 * application/json or anything. One that asks for graphql-response+json or a multipart answer
 * (@defer) gets Apollo's own negotiation.
 */
function answersJson(accept: string | string[] | undefined): boolean {
  if (accept === undefined) return true;
  const value = Array.isArray(accept) ? accept.join(',') : accept;
  if (/graphql-response\+json|multipart/i.test(value)) return false;
  return /application\/json|\*\/\*/i.test(value) || value.trim() === '';
}
