import type { FastifyError, FastifyInstance } from 'fastify';
import { GatewayError, type Logger } from '@gateway/kernel';
import { sendError } from './errors';
import { BODY_LIMIT_BYTES } from './limits';

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
      return typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? new GatewayError('VALIDATION_ERROR', error.message) : undefined;
  }
}

/**
 * Failures of rest-compat itself get the same error body as the router's: unknown routes are a
 * JSON 404, and an unexpected failure is a logged INTERNAL_ERROR, never a stack trace.
 */
export function registerLayerErrors(app: FastifyInstance, logger: Logger): void {
  app.setNotFoundHandler(async (request, reply) => sendError(reply, new GatewayError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`), request.requestId));
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof GatewayError) return sendError(reply, error, request.requestId);
    const known = asGatewayError(error);
    if (known) return sendError(reply, known, request.requestId);
    logger.error({ err: error, requestId: request.requestId, route: request.routeOptions.url }, 'unexpected rest-compat failure');
    return sendError(reply, new GatewayError('INTERNAL_ERROR'), request.requestId);
  });
}
