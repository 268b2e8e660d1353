import { ArgsType, Field, InputType } from 'type-graphql';

@InputType({ description: 'A bank enrolls one of its customers in the alias directory (POST /v1/identity/claim).' })
export class ClaimAliasInput {
  @Field({
    description:
      'The handle to claim: 3-32 characters of lowercase letters, digits, ".", "_" or "-", starting with a letter. Never reused.',
  })
  nptHandle!: string;

  @Field({
    description: "The customer's IBAN; must be valid (country format and mod-97) and an account at the claiming bank.",
  })
  iban!: string;

  @Field({ description: 'Name of the account holder, 1-100 characters. Shown to payers only masked.' })
  customerDisplayName!: string;

  @Field({
    description: "The bank's own customer reference, 1-64 characters; sent back to the bank core for OTP verification.",
  })
  bankCustomerRef!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'Optional mobile number in E.164 (+218912345678), so payers can pay by phone. At most one active alias per number.',
  })
  phone?: string | null;
}

/** Arguments of resolveAlias: exactly one must be given (checked in alias.rules.ts). */
@ArgsType()
export class ResolveAliasArgs {
  @Field(() => String, {
    nullable: true,
    description: 'handle, or handle@bank_handle to require the account to be at that bank.',
  })
  alias?: string | null;

  @Field(() => String, { nullable: true, description: 'Mobile number in E.164, e.g. +218912345678.' })
  phone?: string | null;

  @Field(() => String, { nullable: true, description: 'IBAN, with or without spaces.' })
  iban?: string | null;
}

/** Arguments of aliasRouting: exactly one of alias or iban. */
@ArgsType()
export class AliasRoutingArgs {
  @Field(() => String, {
    nullable: true,
    description: 'handle, or handle@bank_handle to require the account to be at that bank.',
  })
  alias?: string | null;

  @Field(() => String, { nullable: true, description: 'IBAN, with or without spaces.' })
  iban?: string | null;
}

/** Arguments of customerAccounts: one customer of one bank, as the bank registered them. */
@ArgsType()
export class CustomerAccountsArgs {
  @Field({ description: 'Handle of the bank that enrolled the customer.' })
  bankHandle!: string;

  @Field({ description: "The bank's own customer reference (bank_customer_ref of the claim)." })
  bankCustomerRef!: string;
}
