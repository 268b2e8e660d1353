import type { FastifyReply } from 'fastify';
import {
  dpopAnswerHeaders,
  dpopNonceOf,
  DpopRefusal,
  errorBody,
  GatewayError,
  httpStatusOf,
  isErrorCode,
  retryAfterOf,
  type ErrorCode,
} from '@gateway/kernel';

/** A GraphQL error as the router formats it (`extensions.code/status/detail`). */
export interface GraphQLErrorLike {
  message?: unknown;
  extensions?: { code?: unknown; detail?: unknown; retryAfter?: unknown; dpopNonce?: unknown };
}

/**
 * A router error as a GatewayError. A code outside the shared table would have no documented
 * status, so it is reported as INTERNAL_ERROR rather than passed on with a guessed one.
 */
export function fromGraphQLError(error: GraphQLErrorLike | undefined): GatewayError {
  const code = error?.extensions?.code;
  if (!isErrorCode(code)) return new GatewayError('INTERNAL_ERROR');
  const detail = typeof error?.extensions?.detail === 'string' ? error.extensions.detail : undefined;
  const message = typeof error?.message === 'string' ? error.message : undefined;
  if (code === 'invalid_dpop_proof' || code === 'use_dpop_nonce')
    return new DpopRefusal(code, detail ?? code, dpopNonceOf(error?.extensions));
  return new GatewayError(code, detail, message, retryAfterOf(error?.extensions));
}

/**
 * The single place where an error code becomes an HTTP status: kernel's table, or the route's own
 * status for a code it answers otherwise (`statusOverrides`: RFC 9449 has the token and PAR
 * endpoints answer DPoP refusals with 400, where a resource answers 401).
 */
export function sendError(
  reply: FastifyReply,
  error: GatewayError,
  requestId: string,
  statusOverrides?: Partial<Record<ErrorCode, number>>,
): FastifyReply {
  for (const [name, value] of Object.entries(dpopAnswerHeaders(error))) reply.header(name, value);
  // A refusal that passes with time says when (the router's own limits set it before this).
  if (error.retryAfterSeconds !== undefined && !reply.hasHeader('retry-after'))
    reply.header('retry-after', error.retryAfterSeconds);
  return reply
    .code(statusOverrides?.[error.code] ?? httpStatusOf(error.code))
    .type('application/json; charset=utf-8')
    .send(errorBody(error, requestId));
}
