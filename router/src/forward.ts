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
import { operationFromDocument, Supergraph } from '@apollo/federation-internals';
import { QueryPlanner, type FetchNode } from '@apollo/query-planner';
import type { Agent } from 'undici';
import { GatewayError, isErrorCode, memoized, type LocalResponse } from '@gateway/kernel';
import type { SubgraphEndpoint } from './compose';
import type { OperationSource } from './operation';
import { subgraphCall, type SharedFetches, type SubgraphCaller } from './subgraph-call';

/** An operation one subgraph answers whole: what the gateway's plan would send it. */
interface WholeOperation {
  subgraph: SubgraphEndpoint;
  /** The plan's fetch: the subgraph's operation and the variables it uses. */
  fetch: FetchNode;
  /** The client's operation, whose variables are checked before anything is sent. */
  operation: OperationDefinitionNode;
}

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
  outcome: string;
  /** The subgraph that answered it. */
  subgraph: string;
}

/** Who calls and under which request id: what the gateway would attach to its subgraph fetch. */
export type ForwardCaller = SubgraphCaller;

export type Forwarder = (
  source: OperationSource | undefined,
  headers: Record<string, string | string[] | undefined>,
  caller: ForwardCaller,
) => Promise<Forwarded | undefined>;

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Forwards an operation that one subgraph answers whole straight to that subgraph (issue 15: the
 * router's hop). Most of the platform's traffic is such an operation: every rest-compat route and
 * every service call reads or writes one service's data. For them the gateway's work (query plan
 * execution, reshaping the subgraph's answer through the supergraph, Apollo's second serialisation)
 * changes nothing but costs as much as the subgraph's own execution.
 *
 * An operation is forwarded only when all of these hold, checked once per document (cached):
 * it parses within the router's token cap and passes the router's validation (graphql's rules and
 * the router's depth, field and armor caps) against the API schema; the gateway's own query
 * planner plans it as a single fetch, with no entity step, rewrite or @defer; and that fetch
 * selects exactly what the client selected (so the subgraph's answer is the answer). Its variables
 * are checked against the operation's definitions on every request. Anything else (invalid
 * documents, bad variables, several subgraphs, introspection) goes through Apollo and the gateway
 * as before, so errors are answered by one code path. Authentication and rate limits have run
 * before either (the router's admission).
 *
 * The subgraph gets what the gateway would send it: the plan's operation, the variables it uses,
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
  const planner = new QueryPlanner(supergraph);
  const rules = [...specifiedRules, ...options.validationRules];
  const endpoints = new Map(options.subgraphs.map((subgraph) => [subgraph.name, subgraph]));
  const calls = new Map(
    options.subgraphs.map((subgraph) => [
      subgraph.name,
      subgraphCall(subgraph.name, subgraph.url, options.timeoutMs, options.agent, options.shared),
    ]),
  );

  const wholeOf = (query: string, operationName: string | undefined): WholeOperation | null => {
    try {
      const document = parse(query, { maxTokens: options.maxTokens });
      if (validate(schema, document, rules).length > 0) return null;
      const operation = getOperationAST(document, operationName);
      if (!operation || operation.operation === 'subscription') return null;
      const plan = planner.buildQueryPlan(operationFromDocument(apiSchema, document, { operationName }));
      const fetch = plan.node;
      if (
        fetch?.kind !== 'Fetch' ||
        fetch.requires?.length ||
        fetch.inputRewrites?.length ||
        fetch.outputRewrites?.length ||
        fetch.contextRewrites?.length ||
        fetch.hasDefers
      )
        return null;
      const sent = parse(fetch.operation).definitions[0];
      // The same selection (aliases, arguments, directives): the subgraph's data is the client's answer.
      if (sent?.kind !== Kind.OPERATION_DEFINITION || print(sent.selectionSet) !== print(operation.selectionSet))
        return null;
      const subgraph = endpoints.get(fetch.serviceName);
      return subgraph ? { subgraph, fetch, operation } : null;
    } catch {
      return null; // Apollo and the gateway say what is wrong with it
    }
  };

  // Keyed by operation name and document (a name holds no line break).
  const cached = memoized(1000, (key) => {
    const split = key.indexOf('\n');
    return wholeOf(key.slice(split + 1), key.slice(0, split) || undefined);
  });

  const send = async (
    whole: WholeOperation,
    variables: Record<string, unknown>,
    caller: ForwardCaller,
  ): Promise<LocalResponse> => {
    const { subgraph, fetch } = whole;
    const used = Object.fromEntries(
      (fetch.variableUsages ?? []).filter((name) => name in variables).map((name) => [name, variables[name]]),
    );
    const body = {
      query: fetch.operation,
      variables: used,
      ...(fetch.operationName ? { operationName: fetch.operationName } : {}),
    };
    return calls.get(subgraph.name)!(caller, body);
  };

  return async (source, headers, caller) => {
    if (!source || typeof source.query !== 'string' || !answersJson(headers.accept)) return undefined;
    if (source.operationName !== undefined && source.operationName !== null && typeof source.operationName !== 'string')
      return undefined;
    const variables = source.variables ?? {};
    if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) return undefined;
    const whole = cached(`${source.operationName ?? ''}\n${source.query}`);
    if (!whole) return undefined;
    if (
      getVariableValues(schema, whole.operation.variableDefinitions ?? [], variables as Record<string, unknown>).errors
    )
      return undefined;

    let answer: LocalResponse;
    try {
      answer = await send(whole, variables as Record<string, unknown>, caller);
    } catch (error) {
      // Unreachable or too slow: the gateway's answer to a failed fetch, the error formatted alike.
      const failure =
        error instanceof GatewayError
          ? error
          : new GatewayError('SERVICE_UNAVAILABLE', `the ${whole.subgraph.name} service is unreachable`);
      return answered(whole, {
        data: null,
        errors: [{ message: failure.message, extensions: { code: failure.code, detail: failure.detail } }],
      });
    }
    // What the gateway's data source makes of it: the fetch failed, an internal error (never sent
    // again: a mutation may have run behind a proxy that timed out).
    if (answer.status !== 200)
      return answered(whole, {
        data: null,
        errors: [
          {
            message: `${whole.subgraph.name} answered ${answer.status}`,
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
      });
    // The usual answer carries no error: sent on as the subgraph wrote it, parsed once by the caller.
    const clean: Forwarded = {
      status: 200,
      headers: { 'content-type': JSON_CONTENT_TYPE },
      body: answer.body,
      outcome: 'ok',
      subgraph: whole.subgraph.name,
    };
    if (!answer.body.includes('"errors"')) return clean;
    const result = JSON.parse(answer.body) as {
      data?: unknown;
      errors?: GraphQLFormattedError[];
      extensions?: unknown;
    };
    return result.errors?.length ? answered(whole, result) : clean;
  };

  function answered(whole: WholeOperation, result: { data?: unknown; errors?: GraphQLFormattedError[] }): Forwarded {
    const errors = result.errors?.map((error) => options.formatError(error, error));
    const code = errors?.[0]?.extensions?.code;
    return {
      status: 200,
      headers: { 'content-type': JSON_CONTENT_TYPE },
      body: JSON.stringify({ ...result, errors }),
      outcome: !errors?.length ? 'ok' : isErrorCode(code) ? code : 'INTERNAL_ERROR',
      subgraph: whole.subgraph.name,
    };
  }
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
