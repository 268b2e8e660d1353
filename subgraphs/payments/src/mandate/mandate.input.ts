import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { MetadataEntryInput, MetadataFilter } from '../metadata/metadata.input';
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

  @Field(() => [MetadataEntryInput], {
    nullable: true,
    description: "The merchant's own key-value pairs (up to 20), echoed in its webhooks.",
  })
  metadata?: MetadataEntryInput[] | null;
}

@InputType({ description: 'A charge of a mandate (POST /recurring/mandates/{id}/charge).' })
export class ChargeMandateInput {
  @Field(() => GraphQLSafeInt, { description: "Minor units, at most the mandate's amount." })
  amount!: number;

  @Field({ description: "The merchant's reference (up to 128 characters)." })
  reference!: string;

  @Field(() => [MetadataEntryInput], {
    nullable: true,
    description: "The merchant's own key-value pairs (up to 20), echoed in its webhooks.",
  })
  metadata?: MetadataEntryInput[] | null;
}

@InputType({ description: 'Which mandates a list keeps (all given filters at once).' })
export class MandateFilter {
  @Field(() => String, { nullable: true, description: 'PENDING_CONFIRMATION, ACTIVE, CANCELLED or FAILED.' })
  status?: string | null;

  @Field(() => String, { nullable: true, description: 'Created at or after this ISO 8601 time (inclusive).' })
  createdFrom?: string | null;

  @Field(() => String, { nullable: true, description: 'Created before this ISO 8601 time (exclusive).' })
  createdTo?: string | null;

  @Field(() => MetadataFilter, { nullable: true, description: 'Metadata holding this key with this value.' })
  metadata?: MetadataFilter | null;
}

@InputType({ description: "Which of a mandate's charges a list keeps (all given filters at once)." })
export class MandateChargeFilter {
  @Field(() => String, {
    nullable: true,
    description: 'PROCESSING, COMPLETED or FAILED.',
  })
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
