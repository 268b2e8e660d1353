import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export const MERCHANT_MODES = ['test', 'live'] as const;
export type MerchantMode = (typeof MERCHANT_MODES)[number];
/** SUSPENDED by an operator: its keys and dashboard sessions answer MERCHANT_SUSPENDED, its open sessions cannot be paid. */
export type MerchantStatus = 'ACTIVE' | 'SUSPENDED';

/** A merchant registered with the gateway (database shape; the graph shape is merchant.type.ts). */
@Entity({ tableName: 'merchants' })
export class MerchantEntity {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  name!: string;

  /** test merchants hold mk_test_ keys and never move real funds. */
  @Property({ type: 'text' })
  mode!: MerchantMode;

  @Property({ type: 'text', nullable: true })
  webhookUrl: string | null = null;

  /** Electronic format (upper case, no spaces). */
  @Property({ type: 'text', nullable: true })
  settlementIban: string | null = null;

  @Property({ type: 'text' })
  status: MerchantStatus = 'ACTIVE';

  /**
   * Sealed (AES-GCM with the platform secret), not hashed like API keys: the webhook dispatcher
   * needs the raw secret back to compute each delivery's HMAC-SHA256 signature.
   */
  @Property({ type: 'text' })
  webhookSecretSealed!: string;

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
