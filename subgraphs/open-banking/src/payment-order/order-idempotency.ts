import { Entity, LockMode, PrimaryKey, Property } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  assertIdempotencyKey,
  claimIdempotencyKey,
  GatewayError,
  IDEMPOTENCY_LOCK_MS,
  idempotencyVerdict,
  retakenKey,
} from '@gateway/kernel';

/**
 * One Idempotency-Key of one TPP for POST /ob/payment-orders (keys are scoped per TPP). What is
 * kept is the order the first request created: a replay answers that order as it is now, so a
 * TPP that lost the answer learns the truth (PROCESSING may have become COMPLETED meanwhile).
 */
@Entity({ tableName: 'idempotency_keys' })
export class OrderIdempotencyKeyEntity {
  @PrimaryKey({ type: 'text' })
  tppId!: string;

  @PrimaryKey({ type: 'text' })
  key!: string;

  /** SHA-256 of the canonical request: the same key with another body is refused. */
  @Property({ type: 'text' })
  requestHash!: string;

  @Property({ type: 'text' })
  status!: 'in_flight' | 'done';

  @Property({ type: 'text', nullable: true })
  paymentOrderId: string | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  lockedUntil!: Date;
}

export type OrderClaim = { kind: 'proceed' } | { kind: 'replay'; paymentOrderId: string };

/**
 * The one writer of open_banking.idempotency_keys. The same rules as payments' keys for sessions
 * (contract: "Idempotency-Key as for sessions"): begin() before the work, complete() in the
 * work's transaction, release() when the work was refused. 409 IDEMPOTENCY_KEY_IN_USE while the
 * first request runs, 422 IDEMPOTENCY_KEY_REUSED for another body within 24 hours.
 */
export const orderIdempotency = {
  async begin(em: EntityManager, tppId: string, key: string, hash: string, now = new Date()): Promise<OrderClaim> {
    assertIdempotencyKey(key);
    return em.fork().transactional((tx) =>
      claimIdempotencyKey(async (): Promise<OrderClaim | 'gone'> => {
        const lockedUntil = new Date(now.getTime() + IDEMPOTENCY_LOCK_MS);
        // The insert is the claim (raw SQL: `on conflict do nothing` must not abort the transaction).
        const inserted: unknown[] = await tx.execute(
          `insert into "open_banking"."idempotency_keys" ("tpp_id", "key", "request_hash", "status", "payment_order_id", "created_at", "locked_until")
           values (?, ?, ?, 'in_flight', null, ?, ?) on conflict ("tpp_id", "key") do nothing returning "key"`,
          [tppId, key, hash, now, lockedUntil],
        );
        if (inserted.length > 0) return { kind: 'proceed' };
        const existing = await tx.findOne(
          OrderIdempotencyKeyEntity,
          { tppId, key },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!existing) return 'gone';
        if (idempotencyVerdict(existing, key, hash, now) === 'take') {
          Object.assign(existing, retakenKey(existing, hash, now), { paymentOrderId: null });
          return { kind: 'proceed' };
        }
        return { kind: 'replay', paymentOrderId: existing.paymentOrderId! };
      }),
    );
  },

  async complete(tx: EntityManager, tppId: string, key: string, paymentOrderId: string): Promise<void> {
    const count = await tx.nativeUpdate(
      OrderIdempotencyKeyEntity,
      { tppId, key, status: 'in_flight' },
      { status: 'done', paymentOrderId },
    );
    if (count === 0)
      throw new GatewayError('IDEMPOTENCY_KEY_IN_USE', `Idempotency-Key ${key} was taken over by another request`);
  },

  async release(em: EntityManager, tppId: string, key: string): Promise<void> {
    await em.fork().nativeDelete(OrderIdempotencyKeyEntity, { tppId, key, status: 'in_flight' });
  },
};
