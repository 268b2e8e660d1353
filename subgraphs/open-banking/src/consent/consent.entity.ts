import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { ConsentStatus } from './consent.transitions';
import type { ConsentScope } from './consent.rules';

export type RevokedBy = 'tpp' | 'customer' | 'bank';

/**
 * accounts: account information and payments (POST /ob/consents); funds_confirmation: CBPII;
 * vrp: variable recurring payments within control parameters (vrp/vrp-consent-terms.entity.ts). Issue 51.
 */
export type ConsentKind = 'accounts' | 'funds_confirmation' | 'vrp';

/**
 * A TPP's request for access to a customer's accounts at one bank (database shape; the graph
 * shape is consent.type.ts). Status changes only through consent.moves.ts.
 */
@Entity({ tableName: 'consents' })
export class ConsentEntity {
  /** con_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  tppId!: string;

  /** Its TPP's world: a test consent reads and pays at test cores only. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  bankHandle!: string;

  @Property({ type: 'text' })
  status!: ConsentStatus;

  @Property({ type: 'json' })
  scopes: ConsentScope[] = [];

  @Property({ type: 'text' })
  kind: ConsentKind = 'accounts';

  /**
   * The one account a funds-confirmation consent is for, as the TPP named it (iban or alias);
   * null for other consents. The approving customer must hold it.
   */
  @Property({ type: 'text', nullable: true })
  fundsAccountType: 'iban' | 'alias' | null = null;

  @Property({ type: 'text', nullable: true })
  fundsAccountValue: string | null = null;

  /** One of the TPP's registered URIs, exactly as registered. */
  @Property({ type: 'text' })
  redirectUri!: string;

  /** The TPP's anti-CSRF value, echoed back unchanged to redirect_uri. */
  @Property({ type: 'text' })
  state!: string;

  /** PKCE S256 challenge (a hash of the verifier: the verifier itself never reaches the gateway before the token call). */
  @Property({ type: 'text' })
  codeChallenge!: string;

  @Property({ type: 'text' })
  codeChallengeMethod!: 'S256';

  /**
   * RFC 9449 10: the thumbprint of the DPoP key its authorization code must be redeemed with, as
   * the pushed authorization request bound it (dpop_jkt, or the key of the proof sent to PAR).
   */
  @Property({ type: 'text', nullable: true })
  dpopJkt: string | null = null;

  /**
   * When its authorization request was pushed and redeemed (RFC 9126; par.service.ts): a fapi2
   * TPP's consent page opens only then. Null for a spec TPP's consent.
   */
  @Property({ type: 'timestamptz', nullable: true })
  pushedAt: Date | null = null;

  @Property({ type: 'integer' })
  expiryDays!: number;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  /** acc_… ids of the consented accounts, fixed when the customer approves. */
  @Property({ type: 'json' })
  accountIds: string[] = [];

  /** Wrong one-time passwords at the consent page; the third rejects the consent. */
  @Property({ type: 'integer' })
  otpFailures = 0;

  /** HMAC of the customer and OTP that approved it: the same approval sent again is answered again, never read back. */
  @Property({ type: 'text', nullable: true })
  approvalHash: string | null = null;

  @Property({ type: 'text', nullable: true })
  revokedBy: RevokedBy | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  authorisedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  rejectedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  expiredAt: Date | null = null;
}
