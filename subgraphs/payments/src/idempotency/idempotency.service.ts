import { createHash } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError } from '@gateway/kernel';
import { IdempotencyKeyEntity } from './idempotency.entity';

/** Spec "Limits": Idempotency-Key retention. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a request may hold its key before a crash is assumed and the key can be taken over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export type IdempotencyClaim = { kind: 'proceed' } | { kind: 'replay'; response: Record<string, unknown> };

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

/**
 * Idempotency-Key for creating requests, scoped per merchant (spec "Merchant payments"):
 * begin() before the work, complete() in the work's own transaction, release() when the work
 * failed (so a corrected request may use the key again).
 */
export const idempotency = {
  assertKey(key: string): void {
    if (!KEY_SHAPE.test(key)) throw new GatewayError('VALIDATION_ERROR', 'idempotency_key: 1-255 printable ASCII characters without spaces');
  },

  /**
   * Takes the key for a request with this hash, or says what the first request answered.
   * 409 IDEMPOTENCY_KEY_IN_USE while the first one runs, 422 IDEMPOTENCY_KEY_REUSED for another
   * body; after 24 hours the key is forgotten and starts afresh. A key left in flight by a
   * request that died is taken over by the same request once its lock has run out.
   */
  async begin(em: EntityManager, merchantId: string, key: string, hash: string, now = new Date()): Promise<IdempotencyClaim> {
    idempotency.assertKey(key);
    return em.fork().transactional(async (tx) => {
      const lockedUntil = new Date(now.getTime() + IDEMPOTENCY_LOCK_MS);
      // The insert is the claim: a concurrent request with the same key waits on the primary key, then finds this row.
      const inserted: unknown[] = await tx.execute(
        `insert into "payments"."idempotency_keys" ("merchant_id", "key", "request_hash", "status", "response", "created_at", "locked_until")
         values (?, ?, ?, 'in_flight', null, ?, ?) on conflict ("merchant_id", "key") do nothing returning "key"`,
        [merchantId, key, hash, now, lockedUntil],
      );
      if (inserted.length > 0) return { kind: 'proceed' };

      const existing = await tx.findOneOrFail(IdempotencyKeyEntity, { merchantId, key }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const retained = existing.createdAt.getTime() > now.getTime() - IDEMPOTENCY_RETENTION_MS;
      const abandoned = existing.status === 'in_flight' && existing.lockedUntil.getTime() <= now.getTime();
      if (!retained || (abandoned && existing.requestHash === hash)) {
        Object.assign(existing, { requestHash: hash, status: 'in_flight', response: null, createdAt: retained ? existing.createdAt : now, lockedUntil });
        return { kind: 'proceed' };
      }
      // While the first request runs nothing is known yet, whatever this one's body: try again later.
      if (existing.status === 'in_flight' && !abandoned) throw new GatewayError('IDEMPOTENCY_KEY_IN_USE', `a request with Idempotency-Key ${key} is still running`);
      if (existing.requestHash !== hash) {
        throw new GatewayError('IDEMPOTENCY_KEY_REUSED', `Idempotency-Key ${key} was used with a different request in the last 24 hours`);
      }
      return { kind: 'replay', response: existing.response ?? {} };
    });
  },

  /** Stores the answer in the transaction that did the work; refuses if the key is no longer this request's. */
  async complete(tx: EntityManager, merchantId: string, key: string, response: Record<string, unknown>): Promise<void> {
    const count = await tx.nativeUpdate(IdempotencyKeyEntity, { merchantId, key, status: 'in_flight' }, { status: 'done', response });
    if (count === 0) throw new GatewayError('IDEMPOTENCY_KEY_IN_USE', `Idempotency-Key ${key} was taken over by another request`);
  },

  /** The work failed: nothing was created, so the key is not kept. */
  async release(em: EntityManager, merchantId: string, key: string): Promise<void> {
    await em.fork().nativeDelete(IdempotencyKeyEntity, { merchantId, key, status: 'in_flight' });
  },

  /** Keys past the 24-hour retention. */
  async purgeExpired(em: EntityManager, now = new Date()): Promise<number> {
    return em.fork().nativeDelete(IdempotencyKeyEntity, { createdAt: { $lte: new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS) } });
  },
};
