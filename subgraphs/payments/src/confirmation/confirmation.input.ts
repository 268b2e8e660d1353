import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({
  description: 'A creditor bank confirms a rail credit (POST /service/callbacks/v1/payment/credit-confirmed).',
})
export class CreditConfirmationInput {
  @Field({ description: 'Reference of the credit the gateway asked for (the session id); the deduplication key.' })
  paymentReference!: string;

  @Field({ description: 'The payment session (ops_…).' })
  sessionId!: string;

  @Field({ description: 'The credited account; must be the session’s destination.' })
  creditorIban!: string;

  @Field(() => GraphQLSafeInt, { description: 'Minor units; must be the session’s amount.' })
  amount!: number;

  @Field({ description: 'Must be the session’s currency.' })
  currency!: string;

  @Field({ description: 'Retrieval reference number of the rail transfer.' })
  rrn!: string;
}
