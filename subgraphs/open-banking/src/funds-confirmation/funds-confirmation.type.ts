import { Field, ID, ObjectType } from 'type-graphql';
import type { ConsentEntity } from '../consent/consent.entity';
import { ConsentStatus, toConsent } from '../consent/consent.type';

@ObjectType({ description: 'The account a funds-confirmation consent is for, as the TPP named it.' })
export class FundsAccount {
  @Field({ description: 'iban or alias.' })
  type!: string;

  @Field({ description: 'The IBAN or the alias.' })
  value!: string;
}

@ObjectType({
  description:
    'A confirmation-of-funds consent (CBPII): the customer lets the TPP ask whether one account holds an amount, answered yes or no, never with the balance.',
})
export class FundsConfirmationConsent {
  @Field(() => ID, { description: 'Consent id (con_…).' })
  id!: string;

  @Field({ description: 'false for a test consent (a test TPP’s): it is answered from test cores.' })
  livemode!: boolean;

  @Field(() => ID, { description: 'The TPP that requested it (tpp_…).' })
  tppId!: string;

  @Field(() => ConsentStatus, { description: 'Where the consent is in its lifecycle (as other consents).' })
  status!: ConsentStatus;

  @Field({ description: "Handle of the account's bank." })
  bankHandle!: string;

  @Field(() => FundsAccount, { description: 'The one account the consent is for.' })
  account!: FundsAccount;

  @Field({ description: "Where the customer returns: one of the TPP's registered redirect URIs." })
  redirectUri!: string;

  @Field({ description: 'Where to send the customer: the consent page.' })
  consentUrl!: string;

  @Field({ description: 'After this the consent no longer answers (ISO 8601 UTC).' })
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

@ObjectType({ description: 'The answer to one confirmation-of-funds question: yes or no, never the balance.' })
export class FundsConfirmation {
  @Field(() => ID, { description: 'fcf_…: this answer.' })
  fundsConfirmationId!: string;

  @Field(() => ID, { description: 'The consent it was asked under.' })
  consentId!: string;

  @Field({ description: "The TPP's reference, as sent." })
  reference!: string;

  @Field({ description: "true when the account's balance, read live from its bank, covers the amount." })
  fundsAvailable!: boolean;

  @Field({ description: 'When the bank was asked (ISO 8601 UTC).' })
  createdAt!: Date;
}

export function toFundsConfirmationConsent(entity: ConsentEntity, publicBaseUrl: string): FundsConfirmationConsent {
  const consent = toConsent(entity, publicBaseUrl);
  return {
    id: consent.id,
    livemode: consent.livemode,
    tppId: consent.tppId,
    status: consent.status,
    bankHandle: consent.bankHandle,
    account: { type: entity.fundsAccountType ?? 'iban', value: entity.fundsAccountValue ?? '' },
    redirectUri: consent.redirectUri,
    consentUrl: consent.consentUrl,
    expiresAt: consent.expiresAt,
    revokedBy: consent.revokedBy,
    createdAt: consent.createdAt,
    updatedAt: consent.updatedAt,
    authorisedAt: consent.authorisedAt,
    rejectedAt: consent.rejectedAt,
    revokedAt: consent.revokedAt,
    expiredAt: consent.expiredAt,
  };
}
