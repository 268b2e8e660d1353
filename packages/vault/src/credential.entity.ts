import { Entity, Formula, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** What a credential lets its holder be. */
export type CredentialKind =
  | 'merchant_key'
  | 'bank_key'
  | 'internal_key'
  | 'tpp_key'
  | 'ob_authorization_code'
  | 'ob_access_token'
  | 'ob_refresh_token'
  /** A fapi2 TPP's access token from the client_credentials grant (cat_…): the TPP itself, with its scopes (issue 49). */
  | 'ob_client_token'
  /** RFC 7592's registration access token of a dynamically registered TPP (rat_…): its registration only. */
  | 'ob_registration_token'
  | 'session_token'
  /** The merchant dashboard's sign-in, exchanged for the merchant key and held in an HttpOnly cookie (mds_…). */
  | 'dashboard_session'
  /** The operator console's sign-in, exchanged for an admin key and held in an HttpOnly cookie (ocs_…; issue 50). */
  | 'operator_session'
  /** A named operator key (adm_…, adk_sec_… before issue 46): an admin principal carrying the key's name (issue 27). */
  | 'admin_key';

/**
 * A secret the platform issued, stored as its SHA-256 only (DESIGN "Data ownership"). The raw
 * value is returned once at issue time and exists nowhere else.
 */
@Entity({ schema: 'auth', tableName: 'credentials' })
@Index({ properties: ['kind', 'ownerId'] })
export class Credential {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  kind!: CredentialKind;

  @Property({ type: 'text', unique: true })
  hash!: string;

  /** merchant id, bank handle, tpp id, consent id or session id. */
  @Property({ type: 'text' })
  ownerId!: string;

  /** Grants carried by the credential (merchant mode, OB scopes). */
  @Property({ type: 'json' })
  scopes: string[] = [];

  /** Groups credentials that are revoked together (an OB token family). */
  @Property({ type: 'text', nullable: true })
  family?: string | null;

  /** The client the credential was issued to (the TPP of an OB code or token), for per-client limits. */
  @Property({ type: 'text', nullable: true })
  clientId?: string | null;

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  expiresAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;

  /**
   * A display name carried into the principal without another query: an admin key's operator
   * name, which the logs and the audit log show. Null for credentials without one.
   */
  @Property({ type: 'text', nullable: true })
  label?: string | null;

  /**
   * Who issued it, where that matters for revocation: an admin key's creator (the `adk_…` id of
   * the named key that made it, or `ADMIN_KEY` for the configured key). Revoking a key revokes
   * every key it created, and theirs (issue 46: a key must not outlive its maker by a backdoor).
   * Null for other credentials and for admin keys whose maker is not known.
   */
  @Property({ type: 'text', nullable: true })
  createdBy?: string | null;

  /**
   * The thumbprint (RFC 7638) of the key a DPoP-bound token is bound to (its cnf.jkt, RFC 9449 6):
   * it is accepted only with a proof signed by that key. Null for bearer tokens and other credentials.
   */
  @Property({ type: 'text', nullable: true })
  keyThumbprint?: string | null;

  /** When a single-use credential (authorization code, refresh token) was spent; see vault.consume. */
  @Property({ type: 'timestamptz', nullable: true })
  usedAt?: Date | null;

  /**
   * Whether the participant the credential speaks for is suspended (auth.suspended_owners): its
   * owner (a merchant, a bank, a TPP) or, for an Open Banking code or token, its client (the
   * TPP). Lazy: read only by verification, in the same statement as the credential, so a
   * suspension needs no cache to invalidate. Never written.
   */
  @Formula(
    (table) =>
      `exists (select 1 from "auth"."suspended_owners" as "suspended" where "suspended"."owner_id" in (${table}."owner_id", ${table}."client_id"))`,
    { type: 'boolean', lazy: true },
  )
  participantSuspended?: boolean;
}
