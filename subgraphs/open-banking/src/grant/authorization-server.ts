import { Field, ObjectType } from 'type-graphql';
import { OB_SCOPES } from '../consent/consent.rules';
import { DPOP_SIGNING_ALGS } from '@gateway/kernel';
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
      'The authorization endpoint. A fapi2 TPP sends the customer here with client_id and the request_uri of its pushed request (RFC 9126); ' +
      'a spec TPP pushes its request with POST /ob/consents and sends the customer to its consent_url, this endpoint followed by /{consent_id}.',
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

  @Field({ description: 'POST /ob/revoke: token revocation (RFC 7009).' })
  revocationEndpoint!: string;

  @Field(() => [String], {
    description: 'As at the token endpoint: none (spec TPPs) and private_key_jwt (fapi2 TPPs).',
  })
  revocationEndpointAuthMethodsSupported!: string[];

  @Field({ description: 'POST /ob/par: pushed authorization requests (RFC 9126), with private_key_jwt.' })
  pushedAuthorizationRequestEndpoint!: string;

  @Field({
    description:
      'false for the server as a whole: spec TPPs push with POST /ob/consents. Every fapi2 TPP must use PAR (its registration says require_pushed_authorization_requests: true).',
  })
  requirePushedAuthorizationRequests!: boolean;

  @Field(() => [String], { description: 'Algorithms a DPoP proof may be signed with (RFC 9449 5.1).' })
  dpopSigningAlgValuesSupported!: string[];

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
    revocationEndpoint: `${publicBaseUrl}/ob/revoke`,
    revocationEndpointAuthMethodsSupported: ['none', 'private_key_jwt'],
    pushedAuthorizationRequestEndpoint: `${publicBaseUrl}/ob/par`,
    requirePushedAuthorizationRequests: false,
    dpopSigningAlgValuesSupported: [...DPOP_SIGNING_ALGS],
    authorizationResponseIssParameterSupported: true,
    scopesSupported: [...OB_SCOPES],
    serviceDocumentation: `${publicBaseUrl}/docs`,
  };
}
