import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({ description: 'Where the money goes: an alias (handle or handle@bank_handle) or an IBAN.' })
export class DestinationInput {
  @Field({ description: 'alias or iban.' })
  type!: string;

  @Field({ description: 'The handle (optionally handle@bank_handle to require that bank) or the IBAN.' })
  value!: string;
}

@InputType({ description: 'A payment session request (POST /payments/sessions).' })
export class CreatePaymentSessionInput {
  @Field(() => GraphQLSafeInt, {
    description: "Positive integer of minor units, within the destination bank's limits.",
  })
  amount!: number;

  @Field({ description: 'LYD, USD or EUR.' })
  currency!: string;

  @Field(() => DestinationInput, { description: 'Resolved through the identity registry when the session is created.' })
  destination!: DestinationInput;

  @Field(() => String, { nullable: true, description: 'Shown to the payer at checkout; 1-500 characters.' })
  description?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The merchant's own reference, returned in payment.completed; 1-128 characters.",
  })
  reference?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Where the payer returns after paying, with query session_id and status (https in production).',
  })
  redirectUrl?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Where this session's webhooks go instead of the merchant's webhook URL (https to a public host in production).",
  })
  webhookUrl?: string | null;
}
