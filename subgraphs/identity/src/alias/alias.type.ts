import { BankReference, bankReference } from '@gateway/federation';
import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { AliasEntity } from './alias.entity';

export enum AliasStatus {
  ACTIVE = 'ACTIVE',
  INACTIVE = 'INACTIVE',
}

registerEnumType(AliasStatus, {
  name: 'AliasStatus',
  description:
    'Lifecycle of an alias: claimed ACTIVE; INACTIVE once the bank deactivates it (final, the handle is not reused).',
  valuesConfig: {
    ACTIVE: { description: 'Resolvable; payments can be routed to it.' },
    INACTIVE: { description: 'Deactivated by its bank; resolution answers ALIAS_INACTIVE.' },
  },
});

@ObjectType('Alias', {
  description:
    'An entry of the national alias directory: a handle pointing at an IBAN at one bank. One IBAN may carry several handles ' +
    '(as with several aliases per account); resolving by IBAN or phone returns the most recently claimed ACTIVE one.',
})
@Directive('@key(fields: "handle")')
export class Alias {
  @Field(() => ID, { description: 'The handle (npt_handle), unique for ever.' })
  handle!: string;

  @Field({ description: 'IBAN in electronic format (upper case, no spaces).' })
  iban!: string;

  @Field({ description: 'Handle of the bank that claimed the alias and holds the account.' })
  bankHandle!: string;

  @Field({ description: "Three-digit institution code of the account's bank, from the IBAN." })
  institutionCode!: string;

  @Field({ description: 'Account holder name, masked as the first letter of each word followed by *** ("A*** B***").' })
  customerDisplayName!: string;

  @Field(() => AliasStatus, { description: 'ACTIVE or INACTIVE.' })
  status!: AliasStatus;

  @Field({ description: 'When the alias was claimed (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'When the bank deactivated the alias (ISO 8601 UTC); null while ACTIVE.',
  })
  deactivatedAt!: Date | null;

  @Field(() => BankReference, { description: 'The bank holding the account (fields resolved by the banks subgraph).' })
  bank!: BankReference;

  // Restricted fields (bankCustomerRef, phone): resolved by AliasResolver, which checks for the owning bank.
  entity!: AliasEntity;
}

@ObjectType({
  description:
    'Public answer of the directory (GET /v1/identity/resolve): where to route a payment, and whom to show the payer.',
})
export class AliasResolution {
  @Field({ description: 'The resolved handle, without any @bank_handle qualifier.' })
  alias!: string;

  @Field({ description: 'IBAN in electronic format.' })
  iban!: string;

  @Field({ description: 'Handle of the bank holding the account.' })
  bankHandle!: string;

  @Field({ description: "Three-digit institution code of the account's bank." })
  institutionCode!: string;

  @Field({ description: 'Account holder name, masked ("A*** B***").' })
  customerDisplayName!: string;

  @Field(() => BankReference, { description: 'The bank holding the account (fields resolved by the banks subgraph).' })
  bank!: BankReference;
}

/** "Ali Ben Omar" -> "A*** B*** O***": enough for a payer to recognise the payee, too little to harvest names. */
export function maskDisplayName(name: string): string {
  return name
    .split(/\s+/u)
    .filter(Boolean)
    .map((word) => `${(Array.from(word)[0] ?? '').toLocaleUpperCase()}***`)
    .join(' ');
}

export function toAlias(entity: AliasEntity): Alias {
  return {
    handle: entity.handle,
    iban: entity.iban,
    bankHandle: entity.bankHandle,
    institutionCode: entity.institutionCode,
    customerDisplayName: maskDisplayName(entity.customerDisplayName),
    status: AliasStatus[entity.status],
    createdAt: entity.createdAt,
    deactivatedAt: entity.deactivatedAt ?? null,
    bank: bankReference(entity.bankHandle),
    entity,
  };
}

export function toResolution(entity: AliasEntity): AliasResolution {
  return {
    alias: entity.handle,
    iban: entity.iban,
    bankHandle: entity.bankHandle,
    institutionCode: entity.institutionCode,
    customerDisplayName: maskDisplayName(entity.customerDisplayName),
    bank: bankReference(entity.bankHandle),
  };
}

@ObjectType({
  description:
    'Where a payment to or from an alias is routed (platform services only: carries the bank customer reference).',
})
export class AliasRouting {
  @Field({ description: 'The handle, without any @bank_handle qualifier.' })
  handle!: string;

  @Field({ description: 'IBAN in electronic format.' })
  iban!: string;

  @Field({ description: 'Handle of the bank holding the account.' })
  bankHandle!: string;

  @Field({ description: "Three-digit institution code of the account's bank." })
  institutionCode!: string;

  @Field({ description: "The bank's own customer reference, sent to its core for OTP verification." })
  bankCustomerRef!: string;

  @Field(() => AliasStatus, {
    description: 'ACTIVE or INACTIVE: an inactive alias is returned, not refused; the caller decides.',
  })
  status!: AliasStatus;

  @Field(() => BankReference, {
    description:
      "The bank holding the account (fields resolved by the banks subgraph: a platform service reads the bank's routing here, in the same call).",
  })
  bank!: BankReference;
}

export function toRouting(entity: AliasEntity): AliasRouting {
  return {
    handle: entity.handle,
    iban: entity.iban,
    bankHandle: entity.bankHandle,
    institutionCode: entity.institutionCode,
    bankCustomerRef: entity.bankCustomerRef,
    status: AliasStatus[entity.status],
    bank: bankReference(entity.bankHandle),
  };
}
