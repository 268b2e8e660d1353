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
  // RFC 9449: the proof of possession of a DPoP-bound token, verified by the router with the token.
  'dpop',
] as const;

/** Set by the router on its answers; a REST client must see them as if it had called the router. */
export const ROUTER_RESPONSE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  // RFC 9449 8.2: the nonce the next DPoP proof is to carry.
  'dpop-nonce',
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
  // A DPoP proof names the method and URL the client called, which only this layer knows: the
  // router checks the proof against them (DESIGN "Open Banking security profiles").
  if (out.dpop !== undefined) Object.assign(out, dpopRequestHeader(request));
  return Object.assign(out, callerHeaders(request));
}

/**
 * X-DPoP-Request for the router: the method and URL this request reached us with, when it
 * carries a DPoP proof. Always this layer's own value: one a client sent is replaced.
 */
export function dpopRequestHeader(request: FastifyRequest): Record<string, string> {
  return request.headers.dpop === undefined ? {} : { 'x-dpop-request': `${request.method} ${publicUrlOf(request)}` };
}

/** The URL the client called, without its query: as it reached this layer (X-Forwarded-* from trusted proxies). */
export const publicUrlOf = (request: FastifyRequest): string =>
  `${request.protocol}://${request.host}${request.url.split('?')[0]}`;

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
