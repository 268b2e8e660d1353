import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { MetadataEntryInput, MetadataFilter } from '../metadata/metadata.input';

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

  @Field(() => [MetadataEntryInput], {
    nullable: true,
    description: "The merchant's own key-value pairs (up to 20), echoed in its webhooks.",
  })
  metadata?: MetadataEntryInput[] | null;
}

@InputType({ description: "Which refunds a list keeps, a session's or the merchant's (all given filters at once)." })
export class RefundFilter {
  @Field(() => String, { nullable: true, description: 'PROCESSING, COMPLETED or FAILED.' })
  status?: string | null;

  @Field(() => String, { nullable: true, description: 'Created at or after this ISO 8601 time (inclusive).' })
  createdFrom?: string | null;

  @Field(() => String, { nullable: true, description: 'Created before this ISO 8601 time (exclusive).' })
  createdTo?: string | null;

  @Field(() => String, { nullable: true, description: "The merchant's reference, exactly." })
  reference?: string | null;

  @Field(() => MetadataFilter, { nullable: true, description: 'Metadata holding this key with this value.' })
  metadata?: MetadataFilter | null;
}
