import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export type IdempotencyStatus = 'in_flight' | 'done';

/**
 * One Idempotency-Key of one merchant (keys are scoped per merchant: the primary key is the
 * pair). `response` is what the first request answered, replayed for 24 hours.
 */
@Entity({ tableName: 'idempotency_keys' })
export class IdempotencyKeyEntity {
  @PrimaryKey({ type: 'text' })
  merchantId!: string;

  @PrimaryKey({ type: 'text' })
  key!: string;

  /** SHA-256 of the canonical request: the same key with another body is refused. */
  @Property({ type: 'text' })
  requestHash!: string;

  @Property({ type: 'text' })
  status!: IdempotencyStatus;

  @Property({ type: 'json', nullable: true })
  response: Record<string, unknown> | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  /** An in_flight key whose request died (a crash) is taken over after this. */
  @Property({ type: 'timestamptz' })
  lockedUntil!: Date;
}
