import type { FastifyInstance } from 'fastify';
import { newId, REQUEST_ID_HEADER, tagRequestSpan } from '@gateway/kernel';

/**
 * The router accepts only ids of this shape and replaces any other; rest-compat applies the same
 * rule so one id names the request in every response, error body and service log.
 */
const WELL_FORMED = /^req_[0-9A-Za-z]{1,64}$/;

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
  }
}

export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && WELL_FORMED.test(header) ? header : newId('request');
}

/**
 * Every response, including 404s and layer errors, carries X-Request-Id, and
 * X-Content-Type-Options: nosniff (a JSON answer is never sniffed into something a browser runs).
 * A callback hook, not an async one: it never waits, and an async hook costs every request a
 * promise and a turn of the microtask queue.
 */
export function registerRequestId(app: FastifyInstance): void {
  app.decorateRequest('requestId', '');
  app.addHook('onRequest', (request, reply, done) => {
    request.requestId = requestIdOf(request.headers[REQUEST_ID_HEADER]);
    tagRequestSpan('rest-compat', request.requestId);
    reply.header('x-request-id', request.requestId).header('x-content-type-options', 'nosniff');
    done();
  });
}
