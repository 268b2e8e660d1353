import { Field, InputType } from 'type-graphql';

@InputType({ description: 'Merchant registration (admin). The API key and webhook secret are generated.' })
export class RegisterMerchantInput {
  @Field({ description: '1-100 characters, shown to customers at checkout.' })
  name!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Where webhooks are delivered: http(s) in development; https to a public host in production.',
  })
  webhookUrl?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'test (default) or live; decides the API key prefix mk_test_ or mk_live_.',
  })
  mode?: string | null;

  @Field(() => String, { nullable: true, description: 'IBAN the merchant is settled to.' })
  settlementIban?: string | null;
}

@InputType({ description: 'Changes to a merchant (PATCH /merchants/{id}); omitted fields stay as they are.' })
export class UpdateMerchantInput {
  @Field(() => String, { nullable: true, description: '1-100 characters.' })
  name?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'New webhook URL, same rules as at registration; an explicit null removes it.',
  })
  webhookUrl?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'New IBAN the merchant is settled to (mandate charges are paid into it); it cannot be removed, null is refused.',
  })
  settlementIban?: string | null;
}
