import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, refusalBody, type Principal } from '@gateway/kernel';
import type { Admit } from './admission';
import type { ForwardWhole } from './forwarding';
import type { OperationSource } from './operation';
import type { RequestLabels, RouterContext } from './router-context';

declare module 'fastify' {
  interface FastifyRequest {
    gatewayPrincipal?: Principal;
    labels?: RequestLabels;
  }
}

export interface HttpEdgeOptions {
  admit: Admit;
  forwardWhole: ForwardWhole;
  contextOf(
    principal: Principal | undefined,
    requestId: string,
    labels: RequestLabels | undefined,
    ip: string,
  ): RouterContext;
  timed(labels: RequestLabels): (status: number) => void;
}

/** The GraphQL parameters of an HTTP request: a POST's JSON body, a GET's query string. */
function sourceOf(request: FastifyRequest): OperationSource | undefined {
  return (request.method === 'GET' ? request.query : request.body) as OperationSource | undefined;
}

/**
 * The stages in front of Apollo on HTTP /graphql (request-id.ts has run): the request is timed,
 * admitted or refused with the spec's code and status, and answered by the one subgraph that
 * answers it whole when it can be; what is left is Apollo's, with the admitted principal
 * (`gatewayPrincipal`) and the request's labels for its context.
 */
export function useHttpEdge(app: FastifyInstance, { admit, forwardWhole, contextOf, timed }: HttpEdgeOptions): void {
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    const labels: RequestLabels = (request.labels = { operation: 'unknown' });
    const done = timed(labels);
    reply.raw.once('finish', () => done(reply.statusCode));
    const admitting = admit(request.headers, request.ip, sourceOf(request), request.requestId, labels);
    const admission = admitting instanceof Promise ? await admitting : admitting;
    reply.headers(admission.headers);
    if (admission.refusal) {
      labels.outcome = admission.refusal.code;
      return reply
        .code(ERROR_CODES[admission.refusal.code].status)
        .send(refusalBody(request.requestId, admission.refusal));
    }
    request.gatewayPrincipal = admission.principal;
    // A JSON POST (what Apollo's CSRF prevention lets through) may be forwarded; GETs stay Apollo's.
    if (request.method !== 'POST' || !request.headers['content-type']?.startsWith('application/json')) return;
    const forwarded = await forwardWhole(
      sourceOf(request),
      request.headers,
      contextOf(admission.principal, request.requestId, labels, request.ip),
      labels,
    );
    if (forwarded) return reply.code(forwarded.status).headers(forwarded.headers).send(forwarded.body);
  };
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url === '/graphql') return guard(request, reply);
  });
}
