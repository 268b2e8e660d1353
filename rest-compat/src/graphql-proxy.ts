import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { request as httpRequest, type Dispatcher } from 'undici';
import { ERROR_CODES, GatewayError, isInternalHeader, type Logger } from '@gateway/kernel';
import { callerHeaders, dpopRequestHeader } from './headers';
import type { DashboardCookie } from './pages/dashboard/dashboard-cookie';
import { cookieCredential } from './pages/dashboard/dashboard-session';

/** Connection-level headers belong to each hop, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
]);

function forwardable(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  return out;
}

/**
 * The first of the platform's internal headers (X-Gateway-Principal: kernel's isInternalHeader) a
 * client sent, if any. This is where requests from outside cross into the platform: only a platform
 * service names its own principal, and never through here (issue 46), so such a request is refused
 * (401) rather than passed on, whatever the header carries.
 */
const internalHeaderOf = (headers: Record<string, unknown>): string | undefined =>
  Object.keys(headers).find(isInternalHeader);

/** GraphiQL's files (router/src/graphiql.ts): the page a browser gets at GET /graphql loads them from this origin. */
const GRAPHIQL_ASSETS = '/graphiql/assets';

export interface GraphQLProxyOptions {
  graphqlUrl: string;
  dispatcher: Dispatcher;
  logger: Logger;
  /** The dashboard session cookie's name (plain http, or `__Host-` behind TLS). */
  dashboardCookie: DashboardCookie;
}

/**
 * /graphql on the REST base address, so one address serves everything: the request goes to the
 * router byte for byte (credentials included: the router authenticates), and so does its answer;
 * one carrying a header of the platform's own (internalHeaderOf) is refused.
 * The merchant dashboard's session cookie is the one credential added here (cookieCredential).
 */
export async function registerGraphQLProxy(
  app: FastifyInstance,
  { graphqlUrl, dispatcher, logger, dashboardCookie }: GraphQLProxyOptions,
): Promise<void> {
  await app.register(async (scope) => {
    // The body is the router's to parse: keep it raw, whatever its content type.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const toGraphQL = (request: FastifyRequest) =>
      `${graphqlUrl}${request.raw.url?.includes('?') ? request.raw.url.slice(request.raw.url.indexOf('?')) : ''}`;
    // A GraphQL client reads `errors`, so a refusal is in GraphQL's shape, with the spec's code.
    const refuse = (request: FastifyRequest, reply: FastifyReply, error: GatewayError) => {
      const { status } = ERROR_CODES[error.code];
      return reply
        .code(status)
        .type('application/json; charset=utf-8')
        .send({
          errors: [
            {
              message: error.message,
              extensions: { code: error.code, status, detail: error.detail, requestId: request.requestId },
            },
          ],
        });
    };
    const proxy =
      (target: (request: FastifyRequest) => string) => async (request: FastifyRequest, reply: FastifyReply) => {
        const internal = internalHeaderOf(request.headers);
        if (internal)
          return refuse(
            request,
            reply,
            new GatewayError(
              'UNAUTHORIZED',
              `${internal} is internal to the platform and never accepted from a client: send the spec's credential headers`,
            ),
          );
        const credential = cookieCredential(request.headers, request.method, dashboardCookie);
        if (credential instanceof GatewayError) return refuse(request, reply, credential);
        try {
          const response = await httpRequest(target(request), {
            method: request.method as Dispatcher.HttpMethod,
            dispatcher,
            headers: {
              ...forwardable(request.headers),
              ...credential,
              ...dpopRequestHeader(request),
              ...callerHeaders(request),
            },
            body: request.method === 'GET' ? undefined : (request.body as Buffer | undefined),
          });
          const body = Buffer.from(await response.body.arrayBuffer());
          return reply.code(response.statusCode).headers(forwardable(response.headers)).send(body);
        } catch (error) {
          logger.warn({ err: error, request_id: request.requestId }, 'router unreachable for /graphql');
          return refuse(
            request,
            reply,
            new GatewayError('SERVICE_UNAVAILABLE', 'the GraphQL router could not be reached'),
          );
        }
      };
    scope.get('/graphql', proxy(toGraphQL));
    scope.post('/graphql', proxy(toGraphQL));
    scope.get(
      `${GRAPHIQL_ASSETS}/*`,
      proxy((request) => new URL(request.url, graphqlUrl).href),
    );
  });
}
