import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import {
  assertIdempotencyKey,
  claimIdempotencyKey,
  GatewayError,
  IDEMPOTENCY_LOCK_MS,
  IDEMPOTENCY_RETENTION_MS,
  idempotencyVerdict,
  retakenKey,
} from '@gateway/kernel';
import { IdempotencyKeyEntity } from './idempotency.entity';

export type IdempotencyClaim = { kind: 'proceed' } | { kind: 'replay'; response: Record<string, unknown> };

/**
 * Idempotency-Key for creating requests, scoped per merchant (spec "Merchant payments"):
 * begin() before the work, complete() in the work's own transaction, release() when the work
 * failed (so a corrected request may use the key again).
 */
export const idempotency = {
  /**
   * Takes the key for a request with this hash, or says what the first request answered (the
   * rules: @gateway/kernel idempotencyVerdict).
   */
  async begin(
    em: EntityManager,
    merchantId: string,
    key: string,
    hash: string,
    now = new Date(),
  ): Promise<IdempotencyClaim> {
    assertIdempotencyKey(key);
    return em.fork().transactional((tx) =>
      claimIdempotencyKey(async (): Promise<IdempotencyClaim | 'gone'> => {
        const lockedUntil = new Date(now.getTime() + IDEMPOTENCY_LOCK_MS);
        // The insert is the claim: a concurrent request with the same key waits on the primary key, then finds this row.
        const inserted: unknown[] = await tx.execute(
          `insert into "payments"."idempotency_keys" ("merchant_id", "key", "request_hash", "status", "response", "created_at", "locked_until")
           values (?, ?, ?, 'in_flight', null, ?, ?) on conflict ("merchant_id", "key") do nothing returning "key"`,
          [merchantId, key, hash, now, lockedUntil],
        );
        if (inserted.length > 0) return { kind: 'proceed' };

        const existing = await tx.findOne(
          IdempotencyKeyEntity,
          { merchantId, key },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!existing) return 'gone';
        if (idempotencyVerdict(existing, key, hash, now) === 'take') {
          Object.assign(existing, retakenKey(existing, hash, now), { response: null });
          return { kind: 'proceed' };
        }
        return { kind: 'replay', response: existing.response ?? {} };
      }),
    );
  },

  /** Stores the answer in the transaction that did the work; refuses if the key is no longer this request's. */
  async complete(tx: EntityManager, merchantId: string, key: string, response: Record<string, unknown>): Promise<void> {
    const count = await tx.nativeUpdate(
      IdempotencyKeyEntity,
      { merchantId, key, status: 'in_flight' },
      { status: 'done', response },
    );
    if (count === 0) throw idempotency.keyTakenOver(key);
  },

  /**
   * complete() as a part (`key`) of the caller's OneStatement, for work written in that same
   * statement only if this part changed the key's row; keyTakenOver() is the refusal when it did not.
   */
  completeIn(statement: OneStatement, merchantId: string, key: string, response: Record<string, unknown>): void {
    statement.update(
      'key',
      IdempotencyKeyEntity,
      { merchantId, key, status: 'in_flight' },
      { status: 'done', response },
    );
  },

  keyTakenOver(key: string): GatewayError {
    return new GatewayError('IDEMPOTENCY_KEY_IN_USE', `Idempotency-Key ${key} was taken over by another request`);
  },

  /** The work failed: nothing was created, so the key is not kept. */
  async release(em: EntityManager, merchantId: string, key: string): Promise<void> {
    await em.fork().nativeDelete(IdempotencyKeyEntity, { merchantId, key, status: 'in_flight' });
  },

  /** Keys past the 24-hour retention. */
  async purgeExpired(em: EntityManager, now = new Date()): Promise<number> {
    return em
      .fork()
      .nativeDelete(IdempotencyKeyEntity, { createdAt: { $lte: new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS) } });
  },
};
