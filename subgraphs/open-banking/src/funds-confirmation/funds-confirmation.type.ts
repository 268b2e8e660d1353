import { Field, ID, ObjectType } from 'type-graphql';
import type { ConsentEntity } from '../consent/consent.entity';
import { ConsentLifecycle, toConsentLifecycle } from '../consent/consent.type';

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
export class FundsConfirmationConsent extends ConsentLifecycle {
  @Field(() => FundsAccount, { description: 'The one account the consent is for.' })
  account!: FundsAccount;
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
  return {
    ...toConsentLifecycle(entity, publicBaseUrl),
    account: { type: entity.fundsAccountType ?? 'iban', value: entity.fundsAccountValue ?? '' },
  };
}
