import { Field, InputType } from 'type-graphql';

/* Here rather than in webhook/: the delivery list's filter is one of the lists' (listing/), its rules beside webhook.service.ts list(). */

@InputType({ description: 'Which webhook deliveries a list keeps (all given filters at once).' })
export class WebhookDeliveryFilter {
  @Field(() => String, { nullable: true, description: 'PENDING, HELD, DELIVERED or FAILED.' })
  status?: string | null;

  @Field(() => String, { nullable: true, description: 'Taken in at or after this ISO 8601 time (inclusive).' })
  createdFrom?: string | null;

  @Field(() => String, { nullable: true, description: 'Taken in before this ISO 8601 time (exclusive).' })
  createdTo?: string | null;

  @Field(() => String, { nullable: true, description: 'The event kind, e.g. payment.completed.' })
  event?: string | null;
}
