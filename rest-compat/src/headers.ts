import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The spec's credential headers plus Idempotency-Key: forwarded to the router, which authenticates them. */
export const CREDENTIAL_HEADERS = [
  'authorization',
  'x-service-bank-key',
  'x-service-admin-key',
  'x-session-token',
  'x-consent-id',
  'x-service-internal-key',
  'idempotency-key',
] as const;

/** Set by the router on its answers; a REST client must see them as if it had called the router. */
export const ROUTER_RESPONSE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
] as const;

export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * The headers of a JSON call to the router: the caller's credentials when given (`credentials`,
 * the client's request headers), then its request id and IP. X-Forwarded-For is replaced, never
 * appended to: the router limits public calls per client IP, and a client must not pick its own.
 * Built in one object: every REST request makes one.
 */
export function routerCallHeaders(request: FastifyRequest, credentials?: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (credentials)
    for (const name of CREDENTIAL_HEADERS) {
      const value = credentials[name];
      if (typeof value === 'string') out[name] = value;
    }
  return Object.assign(out, callerHeaders(request));
}

/** Headers identifying the caller to the router (routerCallHeaders). */
export function callerHeaders(request: FastifyRequest): Record<string, string> {
  return { 'x-request-id': request.requestId, 'x-forwarded-for': request.ip };
}

export function passBackRouterHeaders(reply: FastifyReply, headers: HeaderBag): void {
  for (const name of ROUTER_RESPONSE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) reply.header(name, value);
  }
}
