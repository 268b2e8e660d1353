import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseCookies } from 'cookie';
import {
  ERROR_CODES,
  GatewayError,
  OPERATOR_SESSION_COOKIE,
  OPERATOR_SESSION_PREFIX,
  OPERATOR_SESSION_TTL_SECONDS,
} from '@gateway/kernel';
import { sendError } from '../../errors';
import type { Execute } from '../../executor';
import { CREDENTIAL_HEADERS, passBackRouterHeaders } from '../../headers';
import { HOST_COOKIE_PREFIX, setDashboardCookie, type DashboardCookie } from '../dashboard/dashboard-cookie';
import { fromThisOrigin } from '../dashboard/dashboard-session';

export const OPERATOR_SESSION_PATH = '/operator/session';
/** The console's GraphQL: the public API, signed in by the console cookie only (never by a key or the dashboard's cookie). */
export const OPERATOR_GRAPHQL_PATH = '/operator/graphql';

const START = 'mutation StartOperatorSession { startOperatorSession { token name expiresAt } }';
const END = 'mutation EndOperatorSession($token: String!) { endOperatorSession(token: $token) }';

/** The console cookie's name and attributes: the dashboard's rules (dashboard-cookie.ts), its own name. */
export function operatorCookie(options: { production?: boolean; publicBaseUrl?: string }): DashboardCookie {
  let tls = Boolean(options.production);
  try {
    tls ||= options.publicBaseUrl !== undefined && new URL(options.publicBaseUrl).protocol === 'https:';
  } catch {
    // a malformed PUBLIC_BASE_URL is refused by config; here it only means "not https"
  }
  return { name: tls ? `${HOST_COOKIE_PREFIX}${OPERATOR_SESSION_COOKIE}` : OPERATOR_SESSION_COOKIE, alwaysSecure: tls };
}

/** The console session a request's cookie carries (ocs_…), if any. */
export function operatorSessionOf(headers: IncomingHttpHeaders, cookie: DashboardCookie): string | undefined {
  const token = headers.cookie ? parseCookies(headers.cookie)[cookie.name] : undefined;
  return token?.startsWith(OPERATOR_SESSION_PREFIX) ? token : undefined;
}

/**
 * Only the console cookie speaks for a console request: any credential header the browser (or an
 * extension) added is dropped, and the session goes to the router as a bearer token, which it
 * turns into the admin principal of the key the session was exchanged for (router operator-session.ts).
 */
function signInBy(request: FastifyRequest, credential: string | undefined): void {
  for (const name of CREDENTIAL_HEADERS) delete request.headers[name];
  if (credential !== undefined) request.headers.authorization = credential;
}

const refusal = (reply: FastifyReply, request: FastifyRequest, error: GatewayError) =>
  sendError(reply, error, request.requestId);

/**
 * The operator console's sign-in (issue 50), as the merchant dashboard's: POST /operator/session
 * {admin_key} exchanges the key once for an HttpOnly, SameSite=Strict cookie of 8 hours (Secure
 * and `__Host-` behind TLS); the router keeps only its hash (vault kind operator_session). DELETE
 * ends it at the router and clears the cookie. POST /operator/graphql runs the console's GraphQL
 * by that cookie. Every one of them only from this origin (Origin): they all may change state.
 */
export function registerOperatorSession(app: FastifyInstance, execute: Execute, cookie: DashboardCookie): void {
  const foreign = (request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined =>
    fromThisOrigin(request.headers)
      ? undefined
      : refusal(
          reply,
          request,
          new GatewayError('FORBIDDEN', 'the operator console is used from its own page only (Origin)'),
        );

  app.post(OPERATOR_SESSION_PATH, async (request, reply) => {
    const refused = foreign(request, reply);
    if (refused) return refused;
    const body = request.body as { admin_key?: unknown } | undefined;
    const key = typeof body?.admin_key === 'string' ? body.admin_key.trim() : '';
    if (!key)
      return refusal(reply, request, new GatewayError('VALIDATION_ERROR', 'admin_key: the admin key is required'));
    signInBy(request, undefined);
    request.headers['x-service-admin-key'] = key;
    const { data, error, headers } = await execute(request, START, {});
    delete request.headers['x-service-admin-key'];
    passBackRouterHeaders(reply, headers);
    if (error) return refusal(reply, request, error);
    const session = data!.startOperatorSession as { token: string; name: string; expiresAt: string };
    return reply
      .code(201)
      .header(
        'set-cookie',
        setDashboardCookie(cookie, session.token, OPERATOR_SESSION_TTL_SECONDS, request.protocol === 'https'),
      )
      .header('cache-control', 'no-store')
      .send({ name: session.name, expires_at: session.expiresAt });
  });

  app.delete(OPERATOR_SESSION_PATH, async (request, reply) => {
    const refused = foreign(request, reply);
    if (refused) return refused;
    const session = operatorSessionOf(request.headers, cookie);
    if (session) {
      const { error } = await execute(request, END, { token: session }, undefined, { anonymous: true });
      if (error) return refusal(reply, request, error);
    }
    return reply
      .code(204)
      .header('set-cookie', setDashboardCookie(cookie, '', 0, request.protocol === 'https'))
      .send();
  });

  // A GraphQL client reads `errors`: a refusal keeps GraphQL's shape, with the spec's code.
  const graphqlRefusal = (reply: FastifyReply, request: FastifyRequest, error: GatewayError, httpStatus?: number) => {
    const { status } = ERROR_CODES[error.code];
    return reply
      .code(httpStatus ?? status)
      .header('cache-control', 'no-store')
      .send({
        // The detail is what the API said of this request (the field, the reason): the console shows it.
        errors: [
          {
            message: error.detail,
            extensions: { code: error.code, status, detail: error.detail, requestId: request.requestId },
          },
        ],
      });
  };

  app.post(OPERATOR_GRAPHQL_PATH, async (request, reply) => {
    if (!fromThisOrigin(request.headers))
      return graphqlRefusal(
        reply,
        request,
        new GatewayError('FORBIDDEN', 'the operator console is used from its own page only (Origin)'),
      );
    const session = operatorSessionOf(request.headers, cookie);
    if (!session)
      return graphqlRefusal(reply, request, new GatewayError('UNAUTHORIZED', 'sign in to the operator console'));
    const body = request.body as { query?: unknown; variables?: unknown; operationName?: unknown } | undefined;
    if (typeof body?.query !== 'string')
      return graphqlRefusal(
        reply,
        request,
        new GatewayError('VALIDATION_ERROR', 'query: a GraphQL document is required'),
      );
    const variables =
      body.variables && typeof body.variables === 'object' ? (body.variables as Record<string, unknown>) : {};
    signInBy(request, `Bearer ${session}`);
    const { data, error, headers } = await execute(
      request,
      body.query,
      variables,
      typeof body.operationName === 'string' ? body.operationName : undefined,
    );
    passBackRouterHeaders(reply, headers);
    // The session refused (ended, expired, its key revoked): 401, and the console signs out. An
    // action the API refused is a GraphQL answer (200 with errors, as the router gives it): the
    // page shows its code and message.
    if (error) return graphqlRefusal(reply, request, error, error.code === 'UNAUTHORIZED' ? undefined : 200);
    return reply.header('cache-control', 'no-store').send({ data });
  });
}
