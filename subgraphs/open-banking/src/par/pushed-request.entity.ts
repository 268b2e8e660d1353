import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * An authorization request a client pushed (RFC 9126): what the consent page's approval will
 * answer with (redirect_uri, state, the PKCE challenge, the DPoP key of the code), redeemable once
 * at the authorization endpoint, by the client that pushed it, within its life.
 */
@Entity({ tableName: 'pushed_authorization_requests' })
export class PushedRequestEntity {
  /** urn:ietf:params:oauth:request_uri:… (unguessable: 190 bits). */
  @PrimaryKey({ type: 'text' })
  requestUri!: string;

  @Property({ type: 'text' })
  clientId!: string;

  @Property({ type: 'text' })
  consentId!: string;

  @Property({ type: 'text' })
  redirectUri!: string;

  @Property({ type: 'text' })
  state!: string;

  @Property({ type: 'text' })
  codeChallenge!: string;

  /** RFC 9449 10: the thumbprint of the key the code must be redeemed with; null when the client bound none. */
  @Property({ type: 'text', nullable: true })
  dpopJkt: string | null = null;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  usedAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
