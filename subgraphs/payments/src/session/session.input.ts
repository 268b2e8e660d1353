import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { MetadataEntryInput, MetadataFilter } from '../metadata/metadata.input';

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

  @Field(() => [MetadataEntryInput], {
    nullable: true,
    description:
      "The merchant's own key-value pairs (up to 20; never shown to the payer), echoed in the session's webhooks.",
  })
  metadata?: MetadataEntryInput[] | null;
}

@InputType({ description: 'Which sessions a list keeps (all given filters at once).' })
export class PaymentSessionFilter {
  @Field(() => String, {
    nullable: true,
    description:
      'PENDING, PROCESSING, SETTLEMENT_PENDING, COMPLETED, FAILED or EXPIRED (a PENDING session past expires_at counts as EXPIRED, as it reads).',
  })
  status?: string | null;

  @Field(() => String, { nullable: true, description: 'Created at or after this ISO 8601 time (inclusive).' })
  createdFrom?: string | null;

  @Field(() => String, { nullable: true, description: 'Created before this ISO 8601 time (exclusive).' })
  createdTo?: string | null;

  @Field(() => String, { nullable: true, description: "The merchant's reference, exactly." })
  reference?: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Amount at least this, in minor units (0 or more).' })
  amountMin?: number | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Amount at most this, in minor units (0 or more).' })
  amountMax?: number | null;

  @Field(() => MetadataFilter, { nullable: true, description: 'Metadata holding this key with this value.' })
  metadata?: MetadataFilter | null;
}
