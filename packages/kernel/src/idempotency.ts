import { createHash } from 'node:crypto';
import { GatewayError } from './errors';

/**
 * The Idempotency-Key rules every creating endpoint shares (spec "Limits", contract "General"):
 * payments' sessions and open-banking's payment orders each keep their own table and claim, and
 * decide with these.
 */

/** Spec "Limits": Idempotency-Key retention. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a request may hold its key before a crash is assumed and the same request may take it over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export function assertIdempotencyKey(key: string): void {
  if (!KEY_SHAPE.test(key))
    throw new GatewayError('VALIDATION_ERROR', 'idempotency_key: 1-255 printable ASCII characters without spaces');
}

/** Same request, same hash: keys sorted, absent and null fields dropped, so field order or an explicit null do not matter. */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined && item !== null)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A key already taken, as its owner's table holds it. */
export interface HeldIdempotencyKey {
  requestHash: string;
  status: 'in_flight' | 'done';
  createdAt: Date;
  lockedUntil: Date;
}

/**
 * What a request with `hash` may do with a key already taken: take it (forgotten after 24 hours,
 * or left in flight by the same request that died), replay the first answer, or be refused:
 * 409 IDEMPOTENCY_KEY_IN_USE while the first request runs (nothing is known yet, whatever this
 * one's body), 422 IDEMPOTENCY_KEY_REUSED for another body.
 */
export function idempotencyVerdict(held: HeldIdempotencyKey, key: string, hash: string, now: Date): 'take' | 'replay' {
  const retained = held.createdAt.getTime() > now.getTime() - IDEMPOTENCY_RETENTION_MS;
  const abandoned = held.status === 'in_flight' && held.lockedUntil.getTime() <= now.getTime();
  if (!retained || (abandoned && held.requestHash === hash)) return 'take';
  if (held.status === 'in_flight' && !abandoned)
    throw new GatewayError('IDEMPOTENCY_KEY_IN_USE', `a request with Idempotency-Key ${key} is still running`);
  if (held.requestHash !== hash)
    throw new GatewayError(
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency-Key ${key} was used with a different request in the last 24 hours`,
    );
  return 'replay';
}

/** The fields a taken key is reset to (its creation time kept while it is retained). */
export const retakenKey = (held: HeldIdempotencyKey, hash: string, now: Date): HeldIdempotencyKey => ({
  requestHash: hash,
  status: 'in_flight',
  createdAt: held.createdAt.getTime() > now.getTime() - IDEMPOTENCY_RETENTION_MS ? held.createdAt : now,
  lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LOCK_MS),
});

/** How often a claim tries again when the held row went away between its insert and its read. */
const CLAIM_ATTEMPTS = 3;

/**
 * Runs a claim (insert the key, or read and lock the row that holds it) until it sees a row: the
 * row it conflicted with can be deleted before it is read, by the retention purge or by the
 * first request's release, and then the key is free to insert again.
 */
export async function claimIdempotencyKey<T>(claim: () => Promise<T | 'gone'>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await claim();
    if (outcome !== 'gone') return outcome;
    if (attempt === CLAIM_ATTEMPTS)
      throw new GatewayError('IDEMPOTENCY_KEY_IN_USE', 'Idempotency-Key is changing hands; retry');
  }
}
