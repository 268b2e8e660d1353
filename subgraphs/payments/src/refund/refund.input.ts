import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({ description: 'A refund of a COMPLETED payment session (POST /payments/sessions/{id}/refunds).' })
export class RefundPaymentSessionInput {
  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Minor units, at most what is left to refund; absent: all that is left.',
  })
  amount?: number | null;

  @Field(() => String, { nullable: true, description: 'Why the money is given back (up to 500 characters).' })
  reason?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The merchant's own reference (up to 128 characters), returned in refund.completed / refund.failed.",
  })
  reference?: string | null;
}
