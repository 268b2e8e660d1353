import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENT_POSTS } from './generated/routes';

const IDEMPOTENT = new Set(IDEMPOTENT_POSTS);

export const newIdempotencyKey = (): string => `idk_${globalThis.crypto.randomUUID()}`;

/**
 * Gives every POST to a route the document marks idempotent an Idempotency-Key (the caller's own
 * when it passed one, so a retry after a crash of the caller can reuse it), and records the
 * request as safe to send again: the platform answers a repeated key with the first answer.
 */
export function idempotencyMiddleware(keyed: WeakSet<Request>, newKey: () => string = newIdempotencyKey): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (request.method !== 'POST' || !IDEMPOTENT.has(schemaPath)) return undefined;
      if (!request.headers.get('idempotency-key')) request.headers.set('Idempotency-Key', newKey());
      keyed.add(request);
      return request;
    },
  };
}
