import { ArgsType, Field, InputType, Int } from 'type-graphql';
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

/** The same fields for a charge: its own input type, so each mutation's type says what it refunds. */
@InputType({
  description:
    'A refund of a COMPLETED mandate charge (POST /recurring/mandates/{mandate_id}/charges/{charge_id}/refunds).',
})
export class RefundMandateChargeInput extends RefundPaymentSessionInput {}

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

/** One page of a refunds list, the merchant's (`refunds`) or a session's (`PaymentSession.refunds`): the same arguments. */
@ArgsType()
export class RefundListArgs {
  // In the order the schema has always printed them.
  @Field(() => RefundFilter, {
    nullable: true,
    description: 'Which refunds to keep; bad values are VALIDATION_ERROR naming the field.',
  })
  filter?: RefundFilter | null;

  @Field(() => String, {
    nullable: true,
    description: 'endCursor of the previous page (a refund id of this filtered list).',
  })
  after?: string | null;

  @Field(() => Int, { nullable: true, description: 'Page size, 1-100 (default 20).' })
  first?: number | null;
}
