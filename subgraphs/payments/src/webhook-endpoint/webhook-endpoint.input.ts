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
    description: 'Event kinds it gets (e.g. payment.completed, refund.failed), or ["*"] for all (the default).',
  })
  enabledEvents?: string[] | null;

  @Field(() => String, { nullable: true, description: 'What it is for, up to 500 characters.' })
  description?: string | null;
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
