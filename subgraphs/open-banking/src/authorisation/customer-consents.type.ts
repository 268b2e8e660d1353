import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { ConsentStatus } from '../consent/consent.type';
import { VrpTerms } from '../vrp/vrp.type';
import { ConsentCustomerInput } from './authorisation.input';

@InputType({ description: 'The customer signs in to see their consents at one bank (POST /ob/my-consents/session).' })
export class SignInCustomerConsentsInput {
  @Field({ description: "The customer's bank (its handle)." })
  bankHandle!: string;

  @Field(() => ConsentCustomerInput, {
    description: 'The customer, by one of their accounts at that bank (alias or IBAN).',
  })
  customer!: ConsentCustomerInput;

  @Field({ description: "The one-time password from the customer's bank (4-12 digits)." })
  otp!: string;
}

@ObjectType({ description: 'One consent the customer gave, as their own consent list shows it (GET /ob/my-consents).' })
export class CustomerConsent {
  @Field(() => ID, { description: 'Consent id (con_…).' })
  id!: string;

  @Field({ description: 'Name of the third-party provider holding the access, as registered.' })
  tppName!: string;

  @Field({
    description:
      'accounts (account access), funds_confirmation (confirmation of funds) or vrp (variable recurring payments).',
  })
  kind!: string;

  @Field(() => ConsentStatus, { description: 'AUTHORISED in the list; REVOKED once revokeCustomerConsent revoked it.' })
  status!: ConsentStatus;

  @Field(() => [String], {
    description:
      'Granted access: accounts:read, balances:read, transactions:read, payments:write, or funds_confirmation.',
  })
  scopes!: string[];

  @Field(() => Date, { nullable: true, description: 'When the customer approved it (ISO 8601 UTC).' })
  authorisedAt!: Date | null;

  @Field({ description: 'The access ends at this time (ISO 8601 UTC).' })
  expiresAt!: Date;

  @Field(() => VrpTerms, {
    nullable: true,
    description: "A VRP consent's payee, currency and limits; null for other consents.",
  })
  vrp!: VrpTerms | null;
}

@ObjectType({ description: 'The customer signed in: the token of this visit and their consents.' })
export class CustomerConsentsSession {
  @Field({
    description:
      'Carried by customerConsents and revokeCustomerConsent (ccs_…): bound to this customer at this bank, valid 10 minutes, never stored; it holds no OTP.',
  })
  token!: string;

  @Field({ description: 'When the token runs out (ISO 8601 UTC).' })
  expiresAt!: Date;

  @Field(() => [CustomerConsent], { description: "The customer's AUTHORISED consents at this bank, newest first." })
  consents!: CustomerConsent[];
}

@ObjectType({ description: 'A consent the customer revoked.' })
export class CustomerConsentRevocation {
  @Field(() => ID, { description: 'Consent id (con_…).' })
  consentId!: string;

  @Field(() => ConsentStatus, {
    description: 'REVOKED (also for one already revoked, expired or rejected: it gives no access).',
  })
  status!: ConsentStatus;

  @Field({ description: 'The token the revocation carried, unchanged, to go on with the list.' })
  token!: string;
}
