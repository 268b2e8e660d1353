import type { FastifyInstance } from 'fastify';
import {
  ERROR_CODES,
  GatewayError,
  PRINCIPAL_HEADER,
  refusalBody,
  REQUEST_ID_HEADER,
  verifyPrincipal,
  type LocalResponse,
  type Principal,
} from '@gateway/kernel';

declare module 'fastify' {
  interface FastifyRequest {
    /** The principal the router signed for this request (set on every path but the open ones). */
    caller: Principal;
  }
}

/**
 * What a subgraph answers without a signed principal: the balancer's and the router's health
 * checks, and the scrape of /metrics (behind METRICS_TOKEN when one is set).
 */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The principal a request carries, or the refusal (401 UNAUTHORIZED) of one without a valid one:
 * signed for this subgraph (`audience`, its name) and for the request id it came with.
 */
function callerOf(
  header: string | undefined,
  platformSecret: string,
  audience: string,
  requestId: string | undefined,
): Principal | GatewayError {
  try {
    return verifyPrincipal(header, platformSecret, { audience, requestId: requestId ?? '' });
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

/**
 * A subgraph serves only the router, which signs every request (an anonymous client's too) for the
 * subgraph it sends it to (`audience`: the subgraph's name) and for that request: a request without
 * a valid signed principal came around the router, its limits and its credential checks, and one
 * signed for another service or another request was taken from elsewhere; both are refused before
 * anything runs, on every path but the open ones.
 */
export function useSignedCaller(app: FastifyInstance, platformSecret: string, audience: string): void {
  app.decorateRequest('caller', null as unknown as Principal);
  app.addHook('onRequest', async (request, reply) => {
    if (OPEN_PATHS.has(request.url.split('?')[0]!)) return;
    const caller = callerOf(
      request.headers[PRINCIPAL_HEADER] as string | undefined,
      platformSecret,
      audience,
      request.headers[REQUEST_ID_HEADER] as string | undefined,
    );
    if (caller instanceof GatewayError)
      return reply.code(ERROR_CODES[caller.code].status).send(refusalBody(request.requestId, caller));
    request.caller = caller;
  });
}

/** The same check for a request made in this process (kernel's in-process.ts): the principal, or the answer refusing it. */
export function localCaller(
  headers: Record<string, string>,
  platformSecret: string,
  audience: string,
  requestId: string,
): Principal | LocalResponse {
  const caller = callerOf(headers[PRINCIPAL_HEADER], platformSecret, audience, headers[REQUEST_ID_HEADER]);
  if (!(caller instanceof GatewayError)) return caller;
  return {
    status: ERROR_CODES[caller.code].status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(refusalBody(requestId, caller)),
  };
}
