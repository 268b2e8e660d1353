import type { FastifyInstance } from 'fastify';
import { newId, REQUEST_ID_HEADER, tagRequestSpan } from '@gateway/kernel';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
  }
}

const WELL_FORMED = /^req_[0-9A-Za-z]{1,64}$/;

/** The caller's request id when well formed (rest-compat and services send theirs), else a new one. */
export function requestIdOf(incoming: unknown): string {
  return typeof incoming === 'string' && WELL_FORMED.test(incoming) ? incoming : newId('request');
}

/**
 * The edge's first stage: every HTTP request gets its request id (the caller's, or a new one) before
 * anything can fail, so each answer and each log line of the request carries it.
 */
export function useRequestId(app: FastifyInstance): void {
  app.decorateRequest('requestId', '');
  // A callback hook: nothing here waits, and an async one costs a promise and a turn per request.
  app.addHook('onRequest', (request, reply, done) => {
    request.requestId = requestIdOf(request.headers[REQUEST_ID_HEADER]);
    tagRequestSpan('router', request.requestId);
    reply.header('x-request-id', request.requestId).header('x-content-type-options', 'nosniff');
    done();
  });
}
