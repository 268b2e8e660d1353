import { Field, ObjectType } from 'type-graphql';
import { OB_SCOPES } from '../consent/consent.rules';
import { SIGNING_ALGS } from '../signing-keys/jwks';

@ObjectType('AuthorizationServerMetadata', {
  description:
    'OAuth 2.0 authorization server metadata (RFC 8414), served as GET /.well-known/oauth-authorization-server.',
})
export class AuthorizationServerMetadata {
  @Field({
    description:
      'The issuer: the public base URL, identical to the iss parameter of every authorization response (RFC 9207).',
  })
  issuer!: string;

  @Field({
    description:
      'Base of the consent pages. The authorization request is pushed (POST /ob/consents, like RFC 9126) and the customer is sent to its consent_url, ' +
      'which is this endpoint followed by /{consent_id}; no request parameters are taken here.',
  })
  authorizationEndpoint!: string;

  @Field({ description: 'POST /ob/token (application/x-www-form-urlencoded).' })
  tokenEndpoint!: string;

  @Field(() => [String], { description: 'Only code.' })
  responseTypesSupported!: string[];

  @Field(() => [String], {
    description: 'authorization_code and refresh_token; client_credentials for fapi2 TPPs (their own access token).',
  })
  grantTypesSupported!: string[];

  @Field(() => [String], { description: 'Only S256 (plain is refused with PKCE_METHOD_REJECTED).' })
  codeChallengeMethodsSupported!: string[];

  @Field(() => [String], {
    description:
      'none: spec TPPs are public clients, PKCE binds the code to the client; private_key_jwt (RFC 7523): fapi2 TPPs sign a client assertion.',
  })
  tokenEndpointAuthMethodsSupported!: string[];

  @Field(() => [String], { description: 'Algorithms a private_key_jwt client assertion may be signed with.' })
  tokenEndpointAuthSigningAlgValuesSupported!: string[];

  @Field(() => String, {
    nullable: true,
    description:
      'POST /ob/register, dynamic client registration (RFC 7591) of fapi2 TPPs with a directory-signed software statement; null when the operator has not enabled it (no OB_DIRECTORY_JWKS).',
  })
  registrationEndpoint!: string | null;

  @Field({ description: 'true: every authorization response carries iss (RFC 9207).' })
  authorizationResponseIssParameterSupported!: boolean;

  @Field(() => [String], { description: 'The Open Banking scopes.' })
  scopesSupported!: string[];

  @Field({ description: 'Human documentation of the API (the OpenAPI docs page).' })
  serviceDocumentation!: string;
}

/**
 * The metadata of the authorization server at `publicBaseUrl` (no trailing slash): the same base
 * the consent approval names as `iss`, so a client that checks iss against the issuer it
 * discovered (RFC 9207 2.4) accepts our redirects.
 */
export function authorizationServerMetadata(
  publicBaseUrl: string,
  registrationEnabled = false,
): AuthorizationServerMetadata {
  return {
    issuer: publicBaseUrl,
    authorizationEndpoint: `${publicBaseUrl}/ob/auth`,
    tokenEndpoint: `${publicBaseUrl}/ob/token`,
    responseTypesSupported: ['code'],
    grantTypesSupported: ['authorization_code', 'refresh_token', 'client_credentials'],
    codeChallengeMethodsSupported: ['S256'],
    tokenEndpointAuthMethodsSupported: ['none', 'private_key_jwt'],
    tokenEndpointAuthSigningAlgValuesSupported: [...SIGNING_ALGS],
    registrationEndpoint: registrationEnabled ? `${publicBaseUrl}/ob/register` : null,
    authorizationResponseIssParameterSupported: true,
    scopesSupported: [...OB_SCOPES],
    serviceDocumentation: `${publicBaseUrl}/docs`,
  };
}
