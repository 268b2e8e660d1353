import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({ description: 'Where a payment order pays to.' })
export class PaymentOrderDestinationInput {
  @Field({ description: 'iban (the only destination type of a payment order).' })
  type!: string;

  @Field({
    description: "The payee's IBAN (format and mod-97 checked); its institution code selects the payee's bank.",
  })
  value!: string;
}

@InputType({
  description:
    'A payment order (POST /ob/payment-orders), made with an access token of a consent granting payments:write.',
})
export class CreatePaymentOrderInput {
  @Field({ description: "The payer's account: one of the consent's accounts (acc_…); any other is ACCOUNT_NOT_FOUND." })
  sourceAccountId!: string;

  @Field(() => PaymentOrderDestinationInput, { description: 'The payee.' })
  destination!: PaymentOrderDestinationInput;

  @Field(() => GraphQLSafeInt, {
    description: "Positive integer of minor units, within the banks' minimum and maximum transaction amounts.",
  })
  amount!: number;

  @Field({ description: 'LYD, USD or EUR.' })
  currency!: string;

  @Field(() => String, { nullable: true, description: '1-500 characters, on both statements.' })
  description?: string | null;
}
