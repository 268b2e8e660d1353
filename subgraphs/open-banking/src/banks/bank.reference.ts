import { Directive, Field, ID, ObjectType } from 'type-graphql';

/**
 * Stub of the banks subgraph's entity: open-banking knows a bank by handle only; the router
 * fetches every other Bank field (displayName, ...) from the banks subgraph.
 */
@ObjectType('Bank', { description: 'A bank connected to the gateway.' })
@Directive('@key(fields: "handle", resolvable: false)')
export class BankReference {
  @Field(() => ID, { description: 'Globally unique short bank identifier (bank_handle).' })
  handle!: string;
}

export const bankReference = (handle: string): BankReference => ({ handle });
