import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { PublicJwks } from '../signing-keys/jwks';

/**
 * SUSPENDED by an operator: its tpk_ token and the codes and tokens of its consents answer
 * TPP_SUSPENDED. DISABLED by its own client (RFC 7592 DELETE): for good; its registration and
 * client tokens are revoked and the vault keeps refusing the tokens of its consents.
 */
export type TppStatus = 'ACTIVE' | 'SUSPENDED' | 'DISABLED';

/**
 * How a TPP authenticates (API-CONTRACT "Open Banking at FAPI 2.0"): `spec`, the spec's flow (a
 * tpk_ bearer token, a public client at /ob/token); `fapi2`, a confidential client that signs
 * private_key_jwt assertions with a key of its `jwks` and has no tpk_.
 */
export type SecurityProfile = 'spec' | 'fapi2';

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

  @Property({ type: 'text' })
  securityProfile: SecurityProfile = 'spec';

  /** The TPP's public signing keys (fapi2): its client assertions are verified against them. Null for a spec TPP without keys. */
  @Property({ type: 'json', nullable: true })
  jwks: PublicJwks | null = null;

  /** software_id of the directory's software statement, for a TPP registered dynamically (RFC 7591); else null. */
  @Property({ type: 'text', nullable: true })
  softwareId: string | null = null;

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();
}
