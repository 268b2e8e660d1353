import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { MandateInterval } from './mandate.type';

@InputType({ description: 'A recurring mandate (POST /recurring/mandates).' })
export class CreateMandateInput {
  @Field({ description: "The customer's alias (handle or handle@bank_handle), resolved now." })
  customerAlias!: string;

  @Field(() => GraphQLSafeInt, { description: 'The most one charge may take, in minor units.' })
  amount!: number;

  @Field({ description: 'ISO 4217: LYD, USD or EUR.' })
  currency!: string;

  @Field(() => MandateInterval, { description: 'weekly, monthly or yearly.' })
  interval!: MandateInterval;

  @Field(() => String, { nullable: true, description: 'Shown to the customer (up to 500 characters).' })
  description?: string | null;

  @Field({ description: 'YYYY-MM-DD: no charge before it; periods count from it.' })
  startDate!: string;
}

@InputType({ description: 'A charge of a mandate (POST /recurring/mandates/{id}/charge).' })
export class ChargeMandateInput {
  @Field(() => GraphQLSafeInt, { description: "Minor units, at most the mandate's amount." })
  amount!: number;

  @Field({ description: "The merchant's reference (up to 128 characters)." })
  reference!: string;
}
