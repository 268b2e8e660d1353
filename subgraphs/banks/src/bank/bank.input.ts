import { Field, InputType, Int } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({ description: 'A settlement account held in one currency.' })
export class SettlementAccountInput {
  @Field({ description: 'ISO 4217: LYD, USD or EUR.' })
  currency!: string;

  @Field({ description: "IBAN of the account, at this bank's institution code." })
  iban!: string;
}

@InputType({ description: 'Bank registration (admin). Secrets are generated unless internalKey is given.' })
export class RegisterBankInput {
  @Field({ description: '2-32 characters: lowercase letters, digits and -, starting with a letter.' })
  bankHandle!: string;

  @Field({ description: 'Name shown to customers (up to 100 characters).' })
  displayName!: string;

  @Field({ description: 'LY' })
  country!: string;

  @Field({
    description:
      'Base URL of the bank core callback server; https in production mode. Loopback, private and link-local hosts only with PRIVATE_TARGETS, cloud metadata never (VALIDATION_ERROR).',
  })
  coreBaseUrl!: string;

  @Field({ description: "IBAN of the bank's settlement account, at this bank's institution code." })
  settlementAccountIban!: string;

  @Field(() => [SettlementAccountInput], {
    nullable: true,
    description:
      'Settlement accounts for particular currencies, one per currency; a position in a currency without one is booked on settlementAccountIban.',
  })
  settlementAccounts?: SettlementAccountInput[];

  @Field({ description: "The bank's operations contact." })
  contactEmail!: string;

  @Field({ description: 'Three digits, as inside the IBANs of this bank.' })
  institutionCode!: string;

  @Field({ nullable: true, description: 'Pre-shared internal key; generated when omitted (at least 24 characters).' })
  internalKey?: string;

  @Field({
    nullable: true,
    description:
      "Base URL of the bank's own test core (same interface as coreBaseUrl, another URL): test-mode payments of this bank's customers go there. Omitted: the gateway's built-in test bank answers for this bank." +
      ' Loopback, private and link-local hosts only with PRIVATE_TARGETS, cloud metadata never (VALIDATION_ERROR).',
  })
  sandboxCoreBaseUrl?: string;

  @Field({
    nullable: true,
    description:
      'Internal key of the sandbox core (at least 24 characters, not the live one); generated when a sandboxCoreBaseUrl is given without it.',
  })
  sandboxInternalKey?: string;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Smallest amount per transaction, in minor units; default 1.',
  })
  minAmount?: number;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Largest amount per transaction, in minor units, not below minAmount; default 1000000000.',
  })
  maxAmount?: number;

  @Field({ nullable: true, description: 'Bank supports Open Banking; default false.' })
  obEnabled?: boolean;

  @Field(() => [String], {
    nullable: true,
    description: 'Subset of accounts:read, balances:read, transactions:read, payments:write, no repeats; default none.',
  })
  obScopesSupported?: string[];

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description:
      'Open Banking payment orders (planned) above this amount, in minor units, will require SCA; default 100000.',
  })
  scaExemptionLimit?: number;

  @Field(() => Int, {
    nullable: true,
    description:
      'Exempted Open Banking payment orders one consent may make since its last SCA (the approval, or an order authorised at sca_url); the next one needs SCA, 0 to 1000 (0: none is exempted); default 5.',
  })
  scaExemptionMaxCount?: number;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description:
      "Cumulative amount, in minor units of the order's currency, of the exempted Open Banking payment orders of one consent since its last SCA: an order that would take it above needs SCA; default 100000 (the PSD2 RTS's 100 in LYD's minor units).",
  })
  scaExemptionCumulativeLimit?: number;

  @Field({
    nullable: true,
    description: 'Upper bound of expiry_days for a consent at this bank, 1 to 365; default 90.',
  })
  maxConsentExpiryDays?: number;
}

@InputType({ description: 'Any of the Open Banking capabilities (PATCH /banks/{handle}).' })
export class UpdateBankCapabilitiesInput {
  @Field({ nullable: true, description: 'Bank supports Open Banking; unchanged when omitted.' })
  obEnabled?: boolean;

  @Field(() => [String], {
    nullable: true,
    description:
      'Subset of accounts:read, balances:read, transactions:read, payments:write, no repeats; unchanged when omitted.',
  })
  obScopesSupported?: string[];

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description:
      'Open Banking payment orders (planned) above this amount, in minor units, will require SCA; unchanged when omitted.',
  })
  scaExemptionLimit?: number;

  @Field(() => Int, {
    nullable: true,
    description:
      'Exempted Open Banking payment orders one consent may make since its last SCA (the approval, or an order authorised at sca_url); the next one needs SCA, 0 to 1000; unchanged when omitted.',
  })
  scaExemptionMaxCount?: number;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description:
      "Cumulative amount, in minor units of the order's currency, of the exempted Open Banking payment orders of one consent since its last SCA: an order that would take it above needs SCA; unchanged when omitted.",
  })
  scaExemptionCumulativeLimit?: number;

  @Field({
    nullable: true,
    description: 'Upper bound of expiry_days for a consent at this bank, 1 to 365; unchanged when omitted.',
  })
  maxConsentExpiryDays?: number;

  @Field(() => String, {
    nullable: true,
    description:
      "The bank's own test core (never the live URL), with sandboxInternalKey; null: none any more (the built-in test bank answers again); unchanged when omitted." +
      ' Loopback, private and link-local hosts only with PRIVATE_TARGETS, cloud metadata never (VALIDATION_ERROR).',
  })
  sandboxCoreBaseUrl?: string | null;

  @Field({
    nullable: true,
    description:
      "The sandbox core's internal key (at least 24 characters, not the live one), required with sandboxCoreBaseUrl; the previous one stops working at once.",
  })
  sandboxInternalKey?: string;
}
