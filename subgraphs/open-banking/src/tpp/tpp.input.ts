import { Field, InputType } from 'type-graphql';

@InputType({ description: 'TPP registration (admin). The access token and webhook secret are generated.' })
export class RegisterTppInput {
  @Field({ description: '1-100 characters; shown to customers on the consent page.' })
  name!: string;

  @Field(() => [String], {
    description:
      "1-10 distinct absolute URLs without fragment (https in production), stored exactly: a consent's redirect_uri must equal one of them verbatim.",
  })
  redirectUris!: string[];

  @Field(() => String, {
    nullable: true,
    description:
      'Where Open Banking webhooks are delivered: http(s) in development; https to a public host in production.',
  })
  webhookUrl?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "test (default) or live, fixed at registration: a test TPP's consents read and pay at the banks' test cores only, never moving real funds.",
  })
  mode?: string | null;
}

@InputType({
  description: "A change to a TPP's name or webhook URL (operator or the TPP itself); omitted fields stay as they are.",
})
export class UpdateTppInput {
  @Field(() => String, { nullable: true, description: '1-100 characters.' })
  name?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'New webhook URL, same rules as at registration; an explicit null removes it (no Open Banking webhooks then).',
  })
  webhookUrl?: string | null;
}
