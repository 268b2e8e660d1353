import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_SESSION_TTL_SECONDS, GatewayError } from '@gateway/kernel';
import { sendError } from '../../errors';
import type { Execute } from '../../executor';
import { passBackRouterHeaders } from '../../headers';
import { dashboardSessionOf, setDashboardCookie, type DashboardCookie } from './dashboard-cookie';

export const DASHBOARD_SESSION_PATH = '/dashboard/session';
/** The dashboard's CSV links (GET /reports/sessions.csv, /reports/refunds.csv): the cookie signs them in. */
const REPORTS_PREFIX = '/reports/';

const START = 'mutation StartDashboardSession { startDashboardSession { token merchantId expiresAt } }';
const END = 'mutation EndDashboardSession($token: String!) { endDashboardSession(token: $token) }';

/**
 * Whether a browser request comes from this origin: its Origin names the host it was sent to.
 * A cookie-authenticated request that changes state must (CSRF), on top of SameSite=Strict;
 * browsers send Origin on every POST, DELETE and WebSocket handshake.
 */
export function fromThisOrigin(headers: IncomingHttpHeaders): boolean {
  const { origin, host } = headers;
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * Whether a cookie-signed read (a GET of /reports/) was asked by this origin. The browser's own
 * Sec-Fetch-Site decides when sent (no page script can set it): `same-origin` (the dashboard's
 * download link) or `none` (the user typed or bookmarked the address; no other site can cause
 * it). A browser without Fetch Metadata is judged by Origin: the public base URL's origin, or the
 * host the request was sent to. Neither header: refused, as a request from a same-site page
 * (another subdomain, which SameSite=Strict lets the cookie go to) or any other site is.
 */
export function readFromThisOrigin(headers: IncomingHttpHeaders, publicOrigin: string | undefined): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  if (publicOrigin !== undefined && headers.origin === publicOrigin) return true;
  return fromThisOrigin(headers);
}

/**
 * The credential a /graphql request (HTTP or WebSocket handshake) carries for the router: its own
 * Authorization when it has one, else the dashboard cookie's session as a bearer token, only from
 * this origin for anything but a GET (a GET /graphql never runs a mutation). Undefined: leave the
 * request as it is.
 */
export function cookieCredential(
  headers: IncomingHttpHeaders,
  method: string,
  cookie: DashboardCookie,
): { authorization: string } | GatewayError | undefined {
  if (headers.authorization !== undefined) return undefined;
  const session = dashboardSessionOf(headers, cookie);
  if (!session) return undefined;
  if (method !== 'GET' && !fromThisOrigin(headers))
    return new GatewayError(
      'FORBIDDEN',
      'a request signed in by the dashboard cookie must come from the dashboard (Origin)',
    );
  return { authorization: `Bearer ${session}` };
}

export interface DashboardSessionOptions {
  cookie: DashboardCookie;
  /** The origin of PUBLIC_BASE_URL, when clients reach the gateway through another address. */
  publicOrigin?: string;
}

/**
 * POST /dashboard/session (Authorization: Bearer <merchant key>) exchanges the key for a session
 * cookie: HttpOnly (no script reads it), SameSite=Strict, 8 hours, Secure and `__Host-` behind TLS
 * (dashboard-cookie.ts); the router keeps only its hash (vault kind dashboard_session). DELETE
 * /dashboard/session ends it at the router and clears the cookie. Both only from this origin.
 */
export function registerDashboardSession(
  app: FastifyInstance,
  execute: Execute,
  { cookie, publicOrigin }: DashboardSessionOptions,
): void {
  // The dashboard downloads a report by a plain link (the file streams to disk, no script holds
  // it), and a link cannot carry a header: on a GET of /reports/ the cookie is the merchant's
  // credential, as on /graphql, for a read this origin asked for only (readFromThisOrigin): a
  // page on a sibling subdomain is same-site, so SameSite=Strict alone would let its links in.
  // A request with its own Authorization (an API key) is not concerned.
  // Every request passes here: a callback hook, which costs no promise or microtask turn.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' && request.url.startsWith(REPORTS_PREFIX)) {
      const credential = cookieCredential(request.headers, 'GET', cookie);
      if (credential && !(credential instanceof GatewayError)) {
        if (!readFromThisOrigin(request.headers, publicOrigin)) {
          const refusal = new GatewayError(
            'FORBIDDEN',
            'a report signed in by the dashboard cookie is read from the dashboard only (Sec-Fetch-Site or Origin)',
          );
          sendError(reply, refusal, request.requestId);
          return;
        }
        request.headers.authorization = credential.authorization;
      }
    }
    done();
  });

  const refuseForeign = (request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined =>
    fromThisOrigin(request.headers)
      ? undefined
      : sendError(
          reply,
          new GatewayError('FORBIDDEN', 'the dashboard signs in and out from its own page only (Origin)'),
          request.requestId,
        );

  app.post(DASHBOARD_SESSION_PATH, async (request, reply) => {
    const foreign = refuseForeign(request, reply);
    if (foreign) return foreign;
    if (request.headers.authorization === undefined)
      return sendError(
        reply,
        new GatewayError('INVALID_API_KEY', 'send the merchant key as Authorization: Bearer <key>'),
        request.requestId,
      );
    const { data, error, headers } = await execute(request, START, {});
    passBackRouterHeaders(reply, headers);
    if (error) return sendError(reply, error, request.requestId);
    const session = data!.startDashboardSession as { token: string; merchantId: string; expiresAt: string };
    return reply
      .code(201)
      .header(
        'set-cookie',
        setDashboardCookie(cookie, session.token, DASHBOARD_SESSION_TTL_SECONDS, request.protocol === 'https'),
      )
      .header('cache-control', 'no-store')
      .send({ merchant_id: session.merchantId, expires_at: session.expiresAt });
  });

  app.delete(DASHBOARD_SESSION_PATH, async (request, reply) => {
    const foreign = refuseForeign(request, reply);
    if (foreign) return foreign;
    const session = dashboardSessionOf(request.headers, cookie);
    if (session) {
      const { error } = await execute(request, END, { token: session }, undefined, { anonymous: true });
      if (error) return sendError(reply, error, request.requestId);
    }
    return reply
      .code(204)
      .header('set-cookie', setDashboardCookie(cookie, '', 0, request.protocol === 'https'))
      .send();
  });
}
