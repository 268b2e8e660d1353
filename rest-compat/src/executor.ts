import type { FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { callGraphQL, GatewayError, pooledHttp, resultOf, type LocalResponse, type Logger } from '@gateway/kernel';
import { fromGraphQLError, type GraphQLErrorLike } from './errors';
import { routerCallHeaders, type HeaderBag } from './headers';
import type { GraphQLData } from './route';

export interface Execution {
  /** Present when the operation succeeded. */
  data?: GraphQLData;
  /** The first GraphQL error, or the router being out of reach. */
  error?: GatewayError;
  /** The router's response headers (rate limits), empty when it was not reached. */
  headers: HeaderBag;
}

/** `operationName` picks one operation of a document that holds several. */
/**
 * `anonymous`: the caller's credential headers are not forwarded. Pages a browser opens (checkout,
 * consent, SCA) read public views; a stray Authorization header (basic auth in front of a site, an
 * extension) used to be refused by the router and shown as the 503 "try again" page (fuzzer, issue 13).
 */
export interface ExecuteOptions {
  anonymous?: boolean;
}

export type Execute = (
  request: FastifyRequest,
  operation: string,
  variables: Record<string, unknown>,
  operationName?: string,
  options?: ExecuteOptions,
) => Promise<Execution>;

export interface ExecutorOptions {
  graphqlUrl: string;
  dispatcher: Dispatcher;
  logger: Logger;
  /** Longest wait for the router's whole answer, in process or over HTTP. */
  timeoutMs: number;
}

interface GraphQLResponse {
  data?: GraphQLData | null;
  errors?: GraphQLErrorLike[];
}

const unavailable = (detail: string) => ({ error: new GatewayError('SERVICE_UNAVAILABLE', detail), headers: {} });

/**
 * The one way REST reaches the router: POSTs the route's document with the caller's credentials,
 * request id and IP. Any GraphQL error fails the whole call (a REST response is never partial).
 */
export function createExecutor({ graphqlUrl, dispatcher, logger, timeoutMs }: ExecutorOptions): Execute {
  // Over HTTP through rest-compat's own pool, so stop() closes every socket to the router.
  const overHttp = pooledHttp(dispatcher);
  // What the log says when no answer came (the client gets 503 either way).
  const noAnswer = (late: boolean, cause: unknown) =>
    late ? new Error(`no answer within ${timeoutMs} ms`) : cause instanceof Error ? cause : new Error(String(cause));
  const unreachable = (request: FastifyRequest, error: unknown): Execution => {
    logger.warn({ err: error, request_id: request.requestId }, 'router unreachable');
    return unavailable('the GraphQL router could not be reached');
  };
  // One reaction on the call, no async frame of its own (each costs a request promises: issue 32).
  return (request, operation, variables, operationName, options) => {
    const headers = routerCallHeaders(request, options?.anonymous ? undefined : request.headers);
    const body: { query: string; variables: Record<string, unknown>; operationName?: string } = {
      query: operation,
      variables,
    };
    if (operationName) body.operationName = operationName;
    // In process when the router runs here (kernel's in-process.ts), else over HTTP: one deadline, one error.
    let call: Promise<LocalResponse>;
    try {
      call = callGraphQL(graphqlUrl, { headers, body, ip: request.ip }, { timeoutMs, failure: noAnswer, overHttp });
    } catch (error) {
      return Promise.resolve(unreachable(request, error));
    }
    return call.then(
      (response) => executionOf(request, response),
      (error: unknown) => unreachable(request, error),
    );
  };

  function executionOf(request: FastifyRequest, response: LocalResponse): Execution {
    let payload: GraphQLResponse;
    try {
      payload = resultOf<GraphQLResponse>(response);
    } catch (error) {
      logger.warn(
        { err: error, request_id: request.requestId, status: response.status },
        'router answered without a GraphQL body',
      );
      return unavailable('the GraphQL router gave an unreadable answer');
    }
    if (payload.errors?.length) return { error: fromGraphQLError(payload.errors[0]), headers: response.headers };
    if (!payload.data) return { error: new GatewayError('INTERNAL_ERROR'), headers: response.headers };
    return { data: payload.data, headers: response.headers };
  }
}
