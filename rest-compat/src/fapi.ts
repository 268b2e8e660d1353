import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DPOP_SIGNING_ALGS, GatewayError } from '@gateway/kernel';

/*
 * What an Open Banking resource server owes a TPP on every call made with an access token
 * (API-CONTRACT "Open Banking additions", FAPI 2.0, RFC 6750), for routes marked `fapi`.
 */

export const INTERACTION_ID_HEADER = 'x-fapi-interaction-id';

/** RFC 4122 form, any version (FAPI: "an RFC4122 UUID"). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every 401 of a data call (RFC 6750 3: the token is missing, unknown, expired or revoked). */
export const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';

/** The same for a call made with a DPoP-bound token (RFC 9449 7.1): the scheme it used, and the algorithms accepted. */
export const INVALID_DPOP_TOKEN_CHALLENGE = `DPoP error="invalid_token", algs="${DPOP_SIGNING_ALGS.join(' ')}"`;

/** RFC 6750 3.1: a token sent in a way this server does not accept is a malformed request (400). */
const QUERY_TOKEN_CHALLENGE =
  'Bearer error="invalid_request", error_description="access tokens are accepted only in the Authorization header"';

/**
 * The TPP's interaction id when it sent a UUID, else a fresh one: played back so both sides can
 * find one call in their logs. Anything else is not echoed (a header value the client chose
 * freely would be reflected into our answer and logs).
 */
export function interactionIdOf(request: FastifyRequest): string {
  const sent = request.headers[INTERACTION_ID_HEADER];
  return typeof sent === 'string' && UUID.test(sent.trim()) ? sent.trim() : randomUUID();
}

/**
 * Starts a FAPI call: the interaction id header, then the query-token refusal. FAPI 2.0 (5.3.3)
 * forbids accepting access tokens in the query (RFC 6750 2.3): URLs end up in logs and Referer
 * headers. The request is refused as malformed (400 VALIDATION_ERROR, RFC 6750's
 * invalid_request) before anything reaches the router, even when the token is also in the
 * Authorization header: a token that travelled in a URL must not be rewarded with data.
 */
export function beginFapiCall(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(INTERACTION_ID_HEADER, interactionIdOf(request));
  const query = request.query as Record<string, unknown> | undefined;
  if (query && Object.prototype.hasOwnProperty.call(query, 'access_token')) {
    reply.header('www-authenticate', QUERY_TOKEN_CHALLENGE);
    throw new GatewayError(
      'VALIDATION_ERROR',
      'access_token: not accepted in the query; send Authorization: Bearer <token> (RFC 6750 2.1, FAPI 2.0)',
    );
  }
}

/**
 * onSend of a FAPI route: every 401, wherever it arose, carries a challenge in the scheme the
 * token came with; a DPoP refusal keeps its own (invalid_dpop_proof, use_dpop_nonce: errors.ts).
 */
export async function challengeOn401(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode !== 401 || reply.hasHeader('www-authenticate')) return payload;
  const dpop = request.headers.authorization?.trimStart().startsWith('DPoP ');
  reply.header('www-authenticate', dpop ? INVALID_DPOP_TOKEN_CHALLENGE : INVALID_TOKEN_CHALLENGE);
  return payload;
}
