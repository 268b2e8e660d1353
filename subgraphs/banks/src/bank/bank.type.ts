import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { BankEntity } from './bank.entity';

@ObjectType({ description: "What a bank offers Open Banking clients (spec 'Bank capabilities')." })
export class BankCapabilities {
  @Field({ description: 'Globally unique short bank identifier.' })
  bankHandle!: string;

  @Field({ description: 'Bank supports Open Banking.' })
  obEnabled!: boolean;

  @Field(() => [String], { description: 'Subset of accounts:read, balances:read, transactions:read, payments:write.' })
  obScopesSupported!: string[];

  @Field(() => GraphQLSafeInt, {
    description: 'Open Banking payment orders (planned) above this amount, in minor units, will require SCA.',
  })
  scaExemptionLimit!: number;

  @Field(() => Int, {
    description:
      'Exempted Open Banking payment orders one consent may make since its last SCA (the approval, or an order authorised at sca_url); the next one needs SCA.',
  })
  scaExemptionMaxCount!: number;

  @Field(() => GraphQLSafeInt, {
    description:
      "Cumulative amount, in minor units of the order's currency, of the exempted Open Banking payment orders of one consent since its last SCA: an order that would take it above needs SCA.",
  })
  scaExemptionCumulativeLimit!: number;

  @Field({ description: 'Upper bound of expiry_days for a consent at this bank.' })
  maxConsentExpiryDays!: number;
}

@ObjectType({ description: 'A settlement account held in one currency.' })
export class SettlementAccount {
  @Field({ description: 'ISO 4217: LYD, USD or EUR.' })
  currency!: string;

  @Field({ description: "IBAN of the account, at the bank's institution code." })
  iban!: string;
}

@ObjectType('Bank', { description: 'A bank connected to the gateway.' })
@Directive('@key(fields: "handle")')
export class Bank {
  @Field(() => ID, { description: 'Globally unique short bank identifier (bank_handle).' })
  handle!: string;

  @Field({ description: 'Name shown to customers.' })
  displayName!: string;

  @Field({ description: 'ISO 3166 country code (LY).' })
  country!: string;

  @Field({ description: 'Three-digit institution code, as inside the IBANs of this bank.' })
  institutionCode!: string;

  @Field({ description: 'ACTIVE or SUSPENDED; only ACTIVE banks take part in payments.' })
  status!: string;

  @Field(() => GraphQLSafeInt, {
    description: 'Smallest amount per transaction, in minor units of the payment currency.',
  })
  minAmount!: number;

  @Field(() => GraphQLSafeInt, {
    description: 'Largest amount per transaction, in minor units of the payment currency.',
  })
  maxAmount!: number;

  @Field(() => BankCapabilities, { description: 'Open Banking capabilities.' })
  capabilities!: BankCapabilities;

  @Field({ description: 'Creation time (ISO 8601 UTC).' })
  createdAt!: Date;

  // Restricted fields: resolved by BankResolver, which checks for admin or the bank itself.
  entity!: BankEntity;
}

@ObjectType({ description: 'A newly registered bank with its secrets, each shown this once.' })
export class BankRegistration {
  @Field(() => Bank, { description: 'The bank as registered.' })
  bank!: Bank;

  @Field({ description: 'Bank key (sbk_<handle>_<random>) for X-Service-Bank-Key. Shown once.' })
  bankKey!: string;

  @Field({
    description: 'Internal key the bank core validates on every gateway call, and sends on its callbacks. Shown once.',
  })
  internalKey!: string;

  @Field(() => String, {
    nullable: true,
    description:
      "The sandbox core's internal key (its calls and its callbacks, test world only). Shown once; null without a sandbox core.",
  })
  sandboxInternalKey!: string | null;
}

@ObjectType({ description: 'A rotated bank key; the previous key stopped working at once.' })
export class BankKeyRotation {
  @Field({ description: 'The new bank key. Shown once.' })
  bankKey!: string;
}

export function toCapabilities(entity: BankEntity): BankCapabilities {
  return {
    bankHandle: entity.handle,
    obEnabled: entity.obEnabled,
    obScopesSupported: [...entity.obScopesSupported],
    scaExemptionLimit: Number(entity.scaExemptionLimit),
    scaExemptionMaxCount: entity.scaExemptionMaxCount,
    scaExemptionCumulativeLimit: Number(entity.scaExemptionCumulativeLimit),
    maxConsentExpiryDays: entity.maxConsentExpiryDays,
  };
}

export function toBank(entity: BankEntity): Bank {
  return {
    handle: entity.handle,
    displayName: entity.displayName,
    country: entity.country,
    institutionCode: entity.institutionCode,
    status: entity.status,
    minAmount: Number(entity.minAmount),
    maxAmount: Number(entity.maxAmount),
    capabilities: toCapabilities(entity),
    createdAt: entity.createdAt,
    entity,
  };
}

@ObjectType({
  description:
    'How the payment engine reaches a participating bank (platform services only: carries the internal key).',
})
export class BankRouting {
  @Field({ description: 'Bank handle.' })
  handle!: string;

  @Field({ description: 'Always ACTIVE: a bank that is not is refused with BANK_NOT_PARTICIPATING.' })
  status!: string;

  @Field({ description: 'Three-digit institution code, as inside the IBANs of this bank.' })
  institutionCode!: string;

  @Field({ description: 'Core callback base URL.' })
  coreBaseUrl!: string;

  @Field({ description: 'X-Service-Internal-Key the gateway presents on every core call.' })
  internalKey!: string;

  @Field(() => String, {
    nullable: true,
    description:
      "The bank's own test core, for test objects' calls; null: the gateway's built-in test bank answers for the bank.",
  })
  sandboxCoreBaseUrl!: string | null;

  @Field(() => String, { nullable: true, description: 'X-Service-Internal-Key presented to the sandbox core.' })
  sandboxInternalKey!: string | null;

  @Field(() => GraphQLSafeInt, { description: 'Smallest amount per transaction, in minor units.' })
  minAmount!: number;

  @Field(() => GraphQLSafeInt, { description: 'Largest amount per transaction, in minor units.' })
  maxAmount!: number;

  @Field({
    description:
      "IBAN of the bank's settlement account: where a settlement cycle books the bank's net credit or debit in a currency without an account of its own.",
  })
  settlementAccountIban!: string;

  @Field(() => [SettlementAccount], { description: 'Settlement accounts for particular currencies.' })
  settlementAccounts!: SettlementAccount[];
}

export function toRouting(routing: {
  bank: BankEntity;
  internalKey: string;
  sandboxInternalKey: string | null;
}): BankRouting {
  const { bank } = routing;
  return {
    handle: bank.handle,
    status: bank.status,
    institutionCode: bank.institutionCode,
    coreBaseUrl: bank.coreBaseUrl,
    internalKey: routing.internalKey,
    sandboxCoreBaseUrl: bank.sandboxCoreBaseUrl,
    sandboxInternalKey: routing.sandboxInternalKey,
    minAmount: Number(bank.minAmount),
    maxAmount: Number(bank.maxAmount),
    settlementAccountIban: bank.settlementAccountIban,
    settlementAccounts: bank.settlementAccounts,
  };
}
