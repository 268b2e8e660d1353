import { Field, InputType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

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

  @Field(() => String, {
    nullable: true,
    description:
      "spec (default: the spec's flow with a tpk_ token) or fapi2 (a confidential client: private_key_jwt with a key of jwks at the token endpoint, " +
      'client_credentials tokens instead of tpk_; no tpk_ is issued). Fixed at registration.',
  })
  securityProfile?: string | null;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      "fapi2 only, and required there: the TPP's public signing keys as a JWK Set {keys: [...]}: 1-10 keys of kty EC (P-256, ES256), RSA (2048 bits or more, PS256) " +
      'or OKP (Ed25519, EdDSA), each with a kid unique in the set; private members (d, p, q, ...) are refused. Only the public members are kept.',
  })
  jwks?: Record<string, unknown> | null;
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
