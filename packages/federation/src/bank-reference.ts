import { Directive, Field, ID, ObjectType } from 'type-graphql';

/**
 * Stub of the banks subgraph's entity for the subgraphs that point at a bank (identity, payments,
 * open-banking): they know a bank by handle only, and the router fetches every other Bank field
 * (displayName, capabilities, ...) from the banks subgraph. One class, so every subgraph declares
 * the stub the same way.
 */
@ObjectType('Bank', { description: 'A bank connected to the gateway.' })
@Directive('@key(fields: "handle", resolvable: false)')
export class BankReference {
  @Field(() => ID, { description: 'Globally unique short bank identifier (bank_handle).' })
  handle!: string;
}

export const bankReference = (handle: string): BankReference => ({ handle });
