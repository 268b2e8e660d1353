import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** SUSPENDED by an operator: its tpk_ token and the codes and tokens of its consents answer TPP_SUSPENDED. */
export type TppStatus = 'ACTIVE' | 'SUSPENDED';

/** A third-party provider registered for Open Banking (database shape; the graph shape is tpp.type.ts). */
@Entity({ tableName: 'tpps' })
export class TppEntity {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  name!: string;

  /** test TPPs' consents and orders live in the test world (test cores, test settlement); fixed at registration. */
  @Property({ type: 'text' })
  mode!: 'test' | 'live';

  /** Stored exactly as registered: a consent's redirect_uri must equal one of them character for character. */
  @Property({ type: 'json' })
  redirectUris: string[] = [];

  @Property({ type: 'text', nullable: true })
  webhookUrl: string | null = null;

  /**
   * Sealed (AES-GCM with the platform secret), not hashed like the access token: the webhook
   * dispatcher needs the raw secret back to compute each delivery's HMAC-SHA256 signature.
   */
  @Property({ type: 'text' })
  webhookSecretSealed!: string;

  @Property({ type: 'text' })
  status: TppStatus = 'ACTIVE';

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();
}
