import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { BankReference, bankReference, PageInfo } from '@gateway/federation';
import type { ConsentEntity } from './consent.entity';
import type { ConsentStatus as Status } from './consent.transitions';

export enum ConsentStatus {
  AWAITING_AUTHORISATION = 'AWAITING_AUTHORISATION',
  AUTHORISED = 'AUTHORISED',
  REJECTED = 'REJECTED',
  REVOKED = 'REVOKED',
  EXPIRED = 'EXPIRED',
}

registerEnumType(ConsentStatus, {
  name: 'ConsentStatus',
  description: 'Lifecycle of a consent (contract "Open Banking additions"); REJECTED, REVOKED and EXPIRED are final.',
  valuesConfig: {
    AWAITING_AUTHORISATION: { description: 'Created; waiting for the customer at consent_url.' },
    AUTHORISED: { description: 'The customer approved at their bank; the TPP may exchange the code for tokens.' },
    REJECTED: { description: 'The customer refused, or failed to authenticate.' },
    REVOKED: {
      description: 'Revoked by the TPP, the customer or the bank; every token of the consent stopped working at once.',
    },
    EXPIRED: { description: 'expires_at has passed.' },
  },
});

/** What every kind of consent shows of its lifecycle (account access, funds confirmation, VRP): one set of fields, once. */
@ObjectType({
  description: "A consent's lifecycle fields, shared by every kind of consent (never a field's type itself).",
})
export abstract class ConsentLifecycle {
  @Field(() => ID, { description: 'Consent id (con_…).' })
  id!: string;

  @Field({
    description:
      "true for a live object; false for a test one (a test credential's), whose money moves only at test cores.",
  })
  livemode!: boolean;

  @Field(() => ID, { description: 'The TPP that requested it (tpp_…).' })
  tppId!: string;

  @Field(() => ConsentStatus, { description: 'Where the consent is in its lifecycle.' })
  status!: ConsentStatus;

  @Field({ description: 'Handle of the bank the consent is for.' })
  bankHandle!: string;

  @Field({ description: "Where the customer returns: one of the TPP's registered redirect URIs." })
  redirectUri!: string;

  @Field({ description: 'Where to send the customer: the consent page.' })
  consentUrl!: string;

  @Field({ description: 'After this the consent no longer gives access (ISO 8601 UTC).' })
  expiresAt!: Date;

  @Field(() => String, {
    nullable: true,
    description: 'Who revoked the consent: tpp, customer or bank; null unless REVOKED.',
  })
  revokedBy!: string | null;

  @Field({ description: 'Creation time (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field({ description: 'Time of the last change (ISO 8601 UTC).' })
  updatedAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the customer approved.' })
  authorisedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the customer refused.' })
  rejectedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the consent was revoked.' })
  revokedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the consent expired.' })
  expiredAt!: Date | null;
}

@ObjectType('Consent', {
  description: "A TPP's consent request for a customer's accounts at one bank, and what became of it.",
})
@Directive('@key(fields: "id")')
export class Consent extends ConsentLifecycle {
  @Field(() => BankReference, {
    description: 'The bank the consent is for (fields resolved by the banks subgraph: displayName, ...).',
  })
  bank!: BankReference;

  @Field(() => [String], { description: 'Granted (or requested, before authorisation) scopes.' })
  scopes!: string[];

  @Field(() => [String], { description: 'Consented account ids (acc_…); empty until the customer approves.' })
  accountIds!: string[];
}

@ObjectType({ description: 'One consent of a page, with the cursor that continues after it.' })
export class ConsentEdge {
  @Field({ description: 'Pass as `after` to continue after this consent.' })
  cursor!: string;

  @Field(() => Consent, { description: 'The consent.' })
  node!: Consent;
}

@ObjectType({ description: "A page of the TPP's consents, newest first (Relay connection)." })
export class ConsentConnection {
  @Field(() => [ConsentEdge], { description: 'The consents of this page.' })
  edges!: ConsentEdge[];

  @Field(() => PageInfo, { description: 'Whether more follow, and the cursor to get them.' })
  pageInfo!: PageInfo;
}

/**
 * A consent past expires_at is EXPIRED for every reader at once, even before the expiry job has
 * recorded the move (and written consent.expired). Final statuses stay as they are.
 */
export function effectiveConsentStatus(consent: Pick<ConsentEntity, 'status' | 'expiresAt'>, now = new Date()): Status {
  const open = consent.status === 'AWAITING_AUTHORISATION' || consent.status === 'AUTHORISED';
  return open && consent.expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : consent.status;
}

export function consentUrlOf(publicBaseUrl: string, consentId: string): string {
  return `${publicBaseUrl}/ob/auth/${consentId}`;
}

/** The lifecycle fields of any kind of consent, as every reader sees them now. */
export function toConsentLifecycle(entity: ConsentEntity, publicBaseUrl: string, now = new Date()): ConsentLifecycle {
  const status = effectiveConsentStatus(entity, now);
  return {
    id: entity.id,
    livemode: entity.livemode,
    tppId: entity.tppId,
    status: ConsentStatus[status],
    bankHandle: entity.bankHandle,
    redirectUri: entity.redirectUri,
    consentUrl: consentUrlOf(publicBaseUrl, entity.id),
    expiresAt: entity.expiresAt,
    revokedBy: entity.revokedBy,
    createdAt: entity.createdAt,
    updatedAt: entity.updatedAt,
    authorisedAt: entity.authorisedAt,
    rejectedAt: entity.rejectedAt,
    revokedAt: entity.revokedAt,
    // Expired at expires_at, even before the expiry job has recorded it.
    expiredAt: entity.expiredAt ?? (status === 'EXPIRED' ? entity.expiresAt : null),
  };
}

export function toConsent(entity: ConsentEntity, publicBaseUrl: string, now = new Date()): Consent {
  return {
    ...toConsentLifecycle(entity, publicBaseUrl, now),
    bank: bankReference(entity.bankHandle),
    scopes: [...entity.scopes],
    accountIds: [...entity.accountIds],
  };
}
