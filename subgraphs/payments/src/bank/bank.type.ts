import { Directive, Field, ID, ObjectType } from 'type-graphql';

/**
 * The banks subgraph's Bank as payments knows it: by handle, like the other subgraphs' stub
 * (@gateway/federation's BankReference), but resolvable, because payments adds a field of its own
 * to it (`positions`, net-debit.resolver.ts) that the router fetches from here by handle, whoever
 * found the bank. A class of payments' own: a field resolver is attached to its class in
 * type-graphql's process-wide metadata, and on the shared class `positions` would appear in every
 * subgraph built in the same process (npm start runs them all in one).
 */
@ObjectType('Bank', { description: 'A bank connected to the gateway.' })
@Directive('@key(fields: "handle")')
export class BankReference {
  @Field(() => ID, { description: 'Globally unique short bank identifier (bank_handle).' })
  handle!: string;
}

export const bankReference = (handle: string): BankReference => ({ handle });
