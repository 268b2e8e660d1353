import { Field, ID, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { PublicJwks } from '../signing-keys/jwks';
import type { TppEntity } from '../tpp/tpp.entity';
import { PRIVATE_KEY_JWT } from './registration.rules';

@ObjectType('ClientRegistration', {
  description: "A dynamically registered TPP's client information (RFC 7591 3.2.1, RFC 7592 3).",
})
export class ClientRegistration {
  @Field(() => ID, { description: 'The client id: the TPP id (tpp_…).' })
  clientId!: string;

  @Field(() => Int, { description: 'When the client id was issued, in seconds since the epoch.' })
  clientIdIssuedAt!: number;

  @Field({ description: "The software's name from the software statement, shown to customers on the consent page." })
  clientName!: string;

  @Field({ description: 'software_id from the software statement.' })
  softwareId!: string;

  @Field(() => [String], { description: 'Registered redirect URIs, stored exactly.' })
  redirectUris!: string[];

  @Field(() => GraphQLJSONObject, { description: 'The public signing keys (public members only).' })
  jwks!: PublicJwks;

  @Field({ description: 'Always private_key_jwt.' })
  tokenEndpointAuthMethod!: string;

  @Field(() => [String], { description: 'authorization_code, refresh_token, client_credentials.' })
  grantTypes!: string[];

  @Field(() => [String], { description: 'code.' })
  responseTypes!: string[];

  @Field(() => String, { nullable: true, description: 'Where Open Banking webhooks are delivered; null when none.' })
  webhookUrl!: string | null;

  @Field({ description: 'test or live, fixed at registration.' })
  mode!: string;

  @Field({ description: 'Always fapi2.' })
  securityProfile!: string;

  @Field({ description: 'ACTIVE or SUSPENDED (by an operator).' })
  status!: string;

  @Field({ description: 'The client configuration endpoint (RFC 7592): {issuer}/ob/register/{client_id}.' })
  registrationClientUri!: string;
}

@ObjectType('ClientRegistrationResult', { description: 'A new registration with its secrets, each shown this once.' })
export class ClientRegistrationResult {
  @Field(() => ClientRegistration, { description: 'The client information.' })
  registration!: ClientRegistration;

  @Field({
    description:
      'Registration access token (rat_…) for GET, PUT and DELETE on registrationClientUri (Authorization: Bearer). Shown once; stored as a hash.',
  })
  registrationAccessToken!: string;

  @Field({ description: 'Secret (whsec_…) keying the signatures of Open Banking webhook deliveries. Shown once.' })
  webhookSecret!: string;
}

export function toClientRegistration(tpp: TppEntity, publicBaseUrl: string): ClientRegistration {
  return {
    clientId: tpp.id,
    clientIdIssuedAt: Math.floor(tpp.createdAt.getTime() / 1000),
    clientName: tpp.name,
    softwareId: tpp.softwareId ?? '',
    redirectUris: [...tpp.redirectUris],
    jwks: { keys: (tpp.jwks?.keys ?? []).map((key) => ({ ...key })) },
    tokenEndpointAuthMethod: PRIVATE_KEY_JWT,
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    responseTypes: ['code'],
    webhookUrl: tpp.webhookUrl,
    mode: tpp.mode,
    securityProfile: tpp.securityProfile,
    status: tpp.status,
    registrationClientUri: `${publicBaseUrl}/ob/register/${tpp.id}`,
  };
}
