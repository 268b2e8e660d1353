import type { FastifyRequest } from 'fastify';
import { request as httpRequest, type Dispatcher } from 'undici';
import { GatewayError, localEndpoint, withinDeadline, type Logger } from '@gateway/kernel';
import { fromGraphQLError, type GraphQLErrorLike } from './errors';
import { callerHeaders, credentialHeaders, type HeaderBag } from './headers';
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

export type Execute = (request: FastifyRequest, operation: string, variables: Record<string, unknown>, operationName?: string, options?: ExecuteOptions) => Promise<Execution>;

export interface ExecutorOptions {
  graphqlUrl: string;
  dispatcher: Dispatcher;
  logger: Logger;
  /** Longest wait for the router's answer (the dispatcher's own timeouts over HTTP). */
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
  return async (request, operation, variables, operationName, options) => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(options?.anonymous ? {} : credentialHeaders(request.headers)),
      ...callerHeaders(request),
    };
    const body = { query: operation, variables, ...(operationName ? { operationName } : {}) };
    // The router in this process answers without HTTP (kernel's in-process.ts); elsewhere over HTTP.
    const local = localEndpoint(graphqlUrl);
    let answer: { payload: GraphQLResponse; headers: HeaderBag };
    if (local) {
      try {
        const response = await withinDeadline(local({ headers, body, ip: request.ip }), timeoutMs, () => new Error(`no answer within ${timeoutMs} ms`));
        answer = { payload: JSON.parse(response.body) as GraphQLResponse, headers: response.headers };
      } catch (error) {
        logger.warn({ err: error, request_id: request.requestId }, 'router failed in process');
        return unavailable('the GraphQL router could not answer');
      }
    } else {
      let response: Dispatcher.ResponseData;
      try {
        response = await httpRequest(graphqlUrl, { method: 'POST', dispatcher, headers, body: JSON.stringify(body) });
      } catch (error) {
        logger.warn({ err: error, request_id: request.requestId }, 'router unreachable');
        return unavailable('the GraphQL router could not be reached');
      }
      try {
        answer = { payload: (await response.body.json()) as GraphQLResponse, headers: response.headers as HeaderBag };
      } catch (error) {
        logger.warn({ err: error, request_id: request.requestId, status: response.statusCode }, 'router answered without a GraphQL body');
        return unavailable('the GraphQL router gave an unreadable answer');
      }
    }

    const { payload } = answer;
    if (payload.errors?.length) return { error: fromGraphQLError(payload.errors[0]), headers: answer.headers };
    if (!payload.data) return { error: new GatewayError('INTERNAL_ERROR'), headers: answer.headers };
    return { data: payload.data, headers: answer.headers };
  };
}
