import { Field, InputType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

const JWKS =
  'The public signing keys as a JWK Set {keys: [...]}: 1-10 keys of kty EC (P-256, ES256), RSA (2048 bits or more, PS256) or OKP (Ed25519, EdDSA), ' +
  'each with a kid unique in the set; private members are refused. Client assertions are verified against them.';
const REDIRECT_URIS =
  '1-10 distinct absolute URLs without fragment (https in production), stored exactly; when the software statement lists software_redirect_uris, each must be one of them.';
const AUTH_METHOD = 'Must be private_key_jwt (INVALID_CLIENT_METADATA otherwise).';
const WEBHOOK_URL = 'Where Open Banking webhooks are delivered (https to a public host in production).';

@InputType({ description: 'A dynamic client registration request (RFC 7591 2, 3.1).' })
export class ClientRegistrationInput {
  @Field({
    description:
      "A JWT signed by a key of the operator's directory (OB_DIRECTORY_JWKS) with claims software_id, software_client_name (shown to customers) and optionally software_redirect_uris.",
  })
  softwareStatement!: string;

  @Field(() => GraphQLJSONObject, { description: JWKS })
  jwks!: Record<string, unknown>;

  @Field(() => [String], { description: REDIRECT_URIS })
  redirectUris!: string[];

  @Field({ description: AUTH_METHOD })
  tokenEndpointAuthMethod!: string;

  @Field(() => String, { nullable: true, description: WEBHOOK_URL })
  webhookUrl?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "test (default) or live, fixed at registration: a test TPP's consents read and pay at test cores only.",
  })
  mode?: string | null;
}

@InputType({
  description:
    "A registration's replacement (RFC 7592 2.2): the whole metadata again; an omitted webhook_url is removed. The name and software id stay the directory's.",
})
export class ClientRegistrationUpdateInput {
  @Field(() => String, { nullable: true, description: 'When sent, the client_id of the path.' })
  clientId?: string | null;

  @Field(() => GraphQLJSONObject, { description: JWKS })
  jwks!: Record<string, unknown>;

  @Field(() => [String], { description: REDIRECT_URIS })
  redirectUris!: string[];

  @Field({ description: AUTH_METHOD })
  tokenEndpointAuthMethod!: string;

  @Field(() => String, { nullable: true, description: WEBHOOK_URL })
  webhookUrl?: string | null;
}
