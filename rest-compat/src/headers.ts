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
 * Headers identifying the caller to the router. X-Forwarded-For is replaced, never appended to:
 * the router limits public calls per client IP, and a client must not pick its own.
 */
export function callerHeaders(request: FastifyRequest): Record<string, string> {
  return { 'x-request-id': request.requestId, 'x-forwarded-for': request.ip };
}

export function credentialHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

export function passBackRouterHeaders(reply: FastifyReply, headers: HeaderBag): void {
  for (const name of ROUTER_RESPONSE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) reply.header(name, value);
  }
}
