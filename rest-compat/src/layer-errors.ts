import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, GatewayError, newId, type ErrorBody, type Logger } from '@gateway/kernel';
import { sendError } from './errors';
import type { Execute } from './executor';
import { passBackRouterHeaders } from './headers';
import { BODY_LIMIT_BYTES } from './limits';
import { requestIdOf } from './request-id';

/** What Node's HTTP parser refused, said in the spec's words (its codes: llhttp's HPE_*, Node's ERR_HTTP_*). */
function clientErrorDetail(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW')
    return 'request line and headers: larger than 16 KiB (a path or query this long is never valid)';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_REQUEST_HEADERS_TIMEOUT')
    return 'request: not received in time';
  return 'request: malformed HTTP';
}

/**
 * Fastify's clientErrorHandler: a request Node's HTTP parser refuses before fastify sees it (a
 * URL or headers over 16 KiB, malformed HTTP). Fastify's default wrote its own body and status
 * (431 {"error":"Request Header Fields Too Large",…}), outside the spec; this answers 400
 * VALIDATION_ERROR with the spec's error body and an X-Request-Id like every other answer
 * (found by the fuzzer, issue 13).
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const requestId = newId('request');
    const { status, message } = ERROR_CODES.VALIDATION_ERROR;
    const body: ErrorBody = {
      error: { code: 'VALIDATION_ERROR', message, detail: clientErrorDetail(error.code), request_id: requestId },
    };
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/** Fastify's own refusals, in the spec's vocabulary. */
function asGatewayError(error: FastifyError): GatewayError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('PAYLOAD_TOO_LARGE', `body: larger than ${BODY_LIMIT_BYTES} bytes (1 MiB)`);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('VALIDATION_ERROR', 'body: malformed JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('VALIDATION_ERROR', 'content-type: send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('VALIDATION_ERROR', 'content-length: does not match the body');
    default:
      // Other client-side refusals of the HTTP layer (bad URL encoding, proto poisoning, ...).
      return typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500
        ? new GatewayError('VALIDATION_ERROR', error.message)
        : undefined;
  }
}

/**
 * Fastify's frameworkErrors: refusals of its router before any hook runs (a path parameter over
 * 100 characters was fastify's own 414 body, a malformed percent-encoding its own 400; found by the
 * fuzzer, issue 13). Answered 400 VALIDATION_ERROR in the spec's error body, with X-Request-Id.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const requestId = requestIdOf(request.headers['x-request-id']);
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'path: a parameter is longer than 100 characters'
      : 'path: malformed URL encoding';
  reply.header('x-request-id', requestId).header('x-content-type-options', 'nosniff');
  void sendError(reply, new GatewayError('VALIDATION_ERROR', detail), requestId);
}

/**
 * What an unknown route costs: the cheapest document the router charges, one `read` point of the
 * caller's budget (its credential's, or its IP's without one), as a read answered 404 would.
 */
const UNKNOWN_ROUTE_CHARGE = 'query UnknownRoute { __typename }';

/**
 * Failures of rest-compat itself get the same error body as the router's: unknown routes are a
 * JSON 404, and an unexpected failure is a logged INTERNAL_ERROR, never a stack trace.
 *
 * An unknown route's 404 carries X-RateLimit-* like every other answer (API-CONTRACT "General"):
 * the limits live in the router, so the 404 is charged there (UNKNOWN_ROUTE_CHARGE), and a caller
 * past its budget gets 429 RATE_LIMITED here too, so probing paths is never free. When the router
 * cannot be reached or refuses the credential, the 404 goes out without the headers.
 */
export function registerLayerErrors(app: FastifyInstance, logger: Logger, execute: Execute): void {
  app.setNotFoundHandler(async (request, reply) => {
    const charge = await execute(request, UNKNOWN_ROUTE_CHARGE, {});
    passBackRouterHeaders(reply, charge.headers);
    const notFound = new GatewayError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`);
    return sendError(reply, charge.error?.code === 'RATE_LIMITED' ? charge.error : notFound, request.requestId);
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof GatewayError) return sendError(reply, error, request.requestId);
    const known = asGatewayError(error);
    if (known) return sendError(reply, known, request.requestId);
    logger.error(
      { err: error, request_id: request.requestId, route: request.routeOptions.url },
      'unexpected rest-compat failure',
    );
    return sendError(reply, new GatewayError('INTERNAL_ERROR'), request.requestId);
  });
}
