import { Field, InputType } from 'type-graphql';

@InputType({
  description: 'A new webhook endpoint (POST /webhooks/endpoints). Its secret is generated and shown once.',
})
export class CreateWebhookEndpointInput {
  @Field({
    description:
      'Where its deliveries go: http(s) in development, https in production; loopback and private networks refused unless PRIVATE_TARGETS, cloud metadata and reserved ranges always.',
  })
  url!: string;

  @Field(() => [String], {
    nullable: true,
    description:
      "Event kinds it gets, or [\"*\"] for all of its owner's (the default): a merchant's payment.*, refund.* and mandate.* events, a TPP's consent.*, payment_order.*, vrp_consent.* and vrp_payment.* events, the operator's and a bank's liquidity.threshold_reached and liquidity.cap_reached. Another owner's event is VALIDATION_ERROR naming enabled_events.",
  })
  enabledEvents?: string[] | null;

  @Field(() => String, { nullable: true, description: 'What it is for, up to 500 characters.' })
  description?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Its world, live (the default) or test: it gets only that world's events. For the operator's and banks' endpoints, whose credentials have no world; a merchant's or TPP's endpoint is in its credential's world (another mode: VALIDATION_ERROR naming mode).",
  })
  mode?: string | null;
}

@InputType({ description: 'Changes to a webhook endpoint (PATCH /webhooks/endpoints/{id}); omitted fields stay.' })
export class UpdateWebhookEndpointInput {
  @Field(() => String, { nullable: true, description: 'A new URL, checked as on creation.' })
  url?: string | null;

  @Field(() => [String], { nullable: true, description: 'Event kinds it gets, or ["*"] for all.' })
  enabledEvents?: string[] | null;

  @Field(() => String, { nullable: true, description: 'What it is for; an empty string removes it.' })
  description?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'ENABLED or DISABLED (either case): a disabled endpoint gets no deliveries.',
  })
  status?: string | null;
}
