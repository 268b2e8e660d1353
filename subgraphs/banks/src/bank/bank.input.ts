import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({ description: 'Bank registration (admin). Secrets are generated unless internalKey is given.' })
export class RegisterBankInput {
  @Field({ description: '2-32 characters: lowercase letters, digits and -, starting with a letter.' })
  bankHandle!: string;

  @Field()
  displayName!: string;

  @Field({ description: 'LY' })
  country!: string;

  @Field({ description: 'Base URL of the bank core callback server; https in production mode.' })
  coreBaseUrl!: string;

  @Field({ description: "IBAN of the bank's settlement account, at this bank's institution code." })
  settlementAccountIban!: string;

  @Field()
  contactEmail!: string;

  @Field({ description: 'Three digits, as inside the IBANs of this bank.' })
  institutionCode!: string;

  @Field({ nullable: true, description: 'Pre-shared internal key; generated when omitted (at least 24 characters).' })
  internalKey?: string;

  @Field(() => GraphQLSafeInt, { nullable: true })
  minAmount?: number;

  @Field(() => GraphQLSafeInt, { nullable: true })
  maxAmount?: number;

  @Field({ nullable: true })
  obEnabled?: boolean;

  @Field(() => [String], { nullable: true })
  obScopesSupported?: string[];

  @Field(() => GraphQLSafeInt, { nullable: true })
  scaExemptionLimit?: number;

  @Field({ nullable: true })
  maxConsentExpiryDays?: number;
}

@InputType({ description: 'Any of the Open Banking capabilities (PATCH /banks/{handle}).' })
export class UpdateBankCapabilitiesInput {
  @Field({ nullable: true })
  obEnabled?: boolean;

  @Field(() => [String], { nullable: true })
  obScopesSupported?: string[];

  @Field(() => GraphQLSafeInt, { nullable: true })
  scaExemptionLimit?: number;

  @Field({ nullable: true })
  maxConsentExpiryDays?: number;
}
