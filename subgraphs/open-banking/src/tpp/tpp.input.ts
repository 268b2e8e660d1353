import { Field, InputType } from 'type-graphql';

@InputType({ description: 'TPP registration (admin). The access token and webhook secret are generated.' })
export class RegisterTppInput {
  @Field({ description: '1-100 characters; shown to customers on the consent page.' })
  name!: string;

  @Field(() => [String], {
    description: "1-10 distinct absolute URLs without fragment (https in production), stored exactly: a consent's redirect_uri must equal one of them verbatim.",
  })
  redirectUris!: string[];

  @Field(() => String, { nullable: true, description: 'Where Open Banking webhooks will be delivered (planned): http(s) in development; https to a public host in production.' })
  webhookUrl?: string | null;
}
