import { createHash } from 'node:crypto';
import { Entity, LockMode, PrimaryKey, Property } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError } from '@gateway/kernel';

/** Spec "Limits": Idempotency-Key retention. */
const RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a request may hold its key before a crash is assumed and the same request may take it over. */
const LOCK_MS = 60_000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

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

/** Same request, same hash: keys sorted, absent and null fields dropped. */
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

export type OrderClaim = { kind: 'proceed' } | { kind: 'replay'; paymentOrderId: string };

/**
 * The one writer of open_banking.idempotency_keys. The same rules as payments' keys for sessions
 * (contract: "Idempotency-Key as for sessions"): begin() before the work, complete() in the
 * work's transaction, release() when the work was refused. 409 IDEMPOTENCY_KEY_IN_USE while the
 * first request runs, 422 IDEMPOTENCY_KEY_REUSED for another body within 24 hours.
 */
export const orderIdempotency = {
  async begin(em: EntityManager, tppId: string, key: string, hash: string, now = new Date()): Promise<OrderClaim> {
    if (!KEY_SHAPE.test(key)) throw new GatewayError('VALIDATION_ERROR', 'idempotency_key: 1-255 printable ASCII characters without spaces');
    return em.fork().transactional(async (tx) => {
      const lockedUntil = new Date(now.getTime() + LOCK_MS);
      // The insert is the claim (raw SQL: `on conflict do nothing` must not abort the transaction).
      const inserted: unknown[] = await tx.execute(
        `insert into "open_banking"."idempotency_keys" ("tpp_id", "key", "request_hash", "status", "payment_order_id", "created_at", "locked_until")
         values (?, ?, ?, 'in_flight', null, ?, ?) on conflict ("tpp_id", "key") do nothing returning "key"`,
        [tppId, key, hash, now, lockedUntil],
      );
      if (inserted.length > 0) return { kind: 'proceed' };
      const existing = await tx.findOneOrFail(OrderIdempotencyKeyEntity, { tppId, key }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const retained = existing.createdAt.getTime() > now.getTime() - RETENTION_MS;
      const abandoned = existing.status === 'in_flight' && existing.lockedUntil.getTime() <= now.getTime();
      if (!retained || (abandoned && existing.requestHash === hash)) {
        Object.assign(existing, { requestHash: hash, status: 'in_flight', paymentOrderId: null, createdAt: retained ? existing.createdAt : now, lockedUntil });
        return { kind: 'proceed' };
      }
      if (existing.status === 'in_flight' && !abandoned) throw new GatewayError('IDEMPOTENCY_KEY_IN_USE', `a request with Idempotency-Key ${key} is still running`);
      if (existing.requestHash !== hash) throw new GatewayError('IDEMPOTENCY_KEY_REUSED', `Idempotency-Key ${key} was used with a different request in the last 24 hours`);
      return { kind: 'replay', paymentOrderId: existing.paymentOrderId! };
    });
  },

  async complete(tx: EntityManager, tppId: string, key: string, paymentOrderId: string): Promise<void> {
    const count = await tx.nativeUpdate(OrderIdempotencyKeyEntity, { tppId, key, status: 'in_flight' }, { status: 'done', paymentOrderId });
    if (count === 0) throw new GatewayError('IDEMPOTENCY_KEY_IN_USE', `Idempotency-Key ${key} was taken over by another request`);
  },

  async release(em: EntityManager, tppId: string, key: string): Promise<void> {
    await em.fork().nativeDelete(OrderIdempotencyKeyEntity, { tppId, key, status: 'in_flight' });
  },
};
