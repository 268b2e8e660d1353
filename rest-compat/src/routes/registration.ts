import { z } from 'zod';
import { defineRoute } from '../route';
import { jwksSchema } from './tpps';

const REGISTRATION_FIELDS = `fragment ClientRegistrationFields on ClientRegistration {
  clientId clientIdIssuedAt clientName softwareId redirectUris jwks tokenEndpointAuthMethod grantTypes responseTypes
  webhookUrl mode securityProfile status registrationClientUri
}`;

/** RFC 7591 3.2.1 and RFC 7592 3: the client information, snake_case as the RFCs name it. */
const clientInformation = {
  client_id: z
    .string()
    .describe('The TPP id (tpp_…): client_id at POST /ob/token and in client assertions (iss, sub).'),
  client_id_issued_at: z.number().int().describe('Seconds since the epoch.'),
  client_name: z.string().describe('software_client_name of the software statement, shown on the consent page.'),
  software_id: z.string(),
  redirect_uris: z.array(z.string()),
  jwks: jwksSchema,
  token_endpoint_auth_method: z.literal('private_key_jwt'),
  grant_types: z.array(z.string()).describe('authorization_code, refresh_token, client_credentials.'),
  response_types: z.array(z.string()),
  webhook_url: z.string().nullable(),
  mode: z.string().describe('test or live, fixed at registration.'),
  security_profile: z.literal('fapi2'),
  status: z.string().describe('ACTIVE or SUSPENDED (by an operator).'),
  registration_client_uri: z
    .string()
    .describe('{issuer}/ob/register/{client_id}: GET, PUT and DELETE with the registration access token.'),
};

const METADATA = {
  jwks: z
    .record(z.string(), z.unknown())
    .describe(
      'The TPP’s public signing keys, a JWK Set {keys: [...]}: 1-10 keys of kty EC (P-256, ES256), RSA (≥ 2048 bits, PS256) or OKP (Ed25519, EdDSA), ' +
        'each with a kid unique in the set (client assertions name their key by kid); private members are refused. Only public members are kept.',
    ),
  redirect_uris: z
    .array(z.string())
    .describe(
      '1-10 absolute URLs without fragment (https in production), matched exactly later; each must be among the statement’s software_redirect_uris when it lists them.',
    ),
  token_endpoint_auth_method: z
    .string()
    .describe('private_key_jwt; any other value is refused (INVALID_CLIENT_METADATA).'),
  webhook_url: z.string().nullish().describe('Where Open Banking events are delivered, signed with webhook_secret.'),
};

const clientParams = z.object({ client_id: z.string().describe('The client id (tpp_…).') }).strict();

const ERRORS_OF_METADATA = ['INVALID_CLIENT_METADATA', 'INVALID_REDIRECT_URI'] as const;
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** Dynamic client registration (RFC 7591) and client management (RFC 7592) of fapi2 TPPs. */
export const registrationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/register',
    tag: 'Open Banking',
    summary: 'Register a fapi2 TPP (dynamic client registration, RFC 7591)',
    description:
      'Public: the credential is software_statement, a JWT signed (ES256, PS256 or EdDSA) by a key of the directory the operator trusts (OB_DIRECTORY_JWKS). ' +
      'Its claims: software_id (required), software_client_name (required; the name customers see), software_redirect_uris (optional: when present, every redirect_uri registered must be one of them), ' +
      'iss and iat (required), exp (optional). The TPP is registered with security_profile fapi2: it authenticates at POST /ob/token with private_key_jwt using a key of jwks, ' +
      'gets its own access token with grant_type=client_credentials (no tpk_ is issued), and manages the registration with registration_access_token (shown once, stored hashed). ' +
      'Errors are this API’s error object, with RFC 7591 3.2.2’s codes: INVALID_SOFTWARE_STATEMENT (malformed, expired, missing claim), UNAPPROVED_SOFTWARE_STATEMENT (no directory key verifies it), ' +
      'INVALID_CLIENT_METADATA (jwks, token_endpoint_auth_method, webhook_url, mode; the detail names the field), INVALID_REDIRECT_URI; a missing or mistyped field is 400 VALIDATION_ERROR. ' +
      'Without OB_DIRECTORY_JWKS the server answers 403 REGISTRATION_NOT_ENABLED.',
    auth: [],
    responseHeaders: NO_STORE,
    body: z
      .object({
        software_statement: z.string().describe('The directory-signed software statement (a JWT).'),
        ...METADATA,
        mode: z.string().nullish().describe('test (default) or live, fixed at registration.'),
      })
      .strict(),
    operation: `mutation RegisterClient($input: ClientRegistrationInput!) {
  registerClient(input: $input) { registration { ...ClientRegistrationFields } registrationAccessToken webhookSecret }
}
${REGISTRATION_FIELDS}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ registerClient }) => ({
      ...registerClient.registration,
      registrationAccessToken: registerClient.registrationAccessToken,
      webhookSecret: registerClient.webhookSecret,
    }),
    status: 201,
    response: z
      .object({
        ...clientInformation,
        registration_access_token: z
          .string()
          .describe('rat_…, for Authorization: Bearer on registration_client_uri. Shown once.'),
        webhook_secret: z.string().describe('whsec_…, keys the webhook signatures. Shown once.'),
      })
      .strict(),
    errors: [
      'REGISTRATION_NOT_ENABLED',
      'INVALID_SOFTWARE_STATEMENT',
      'UNAPPROVED_SOFTWARE_STATEMENT',
      ...ERRORS_OF_METADATA,
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/register/{client_id}',
    tag: 'Open Banking',
    summary: "Read a TPP's registration (RFC 7592)",
    description:
      'With the registration access token of this client; any other credential, or a deleted client, is 401 UNAUTHORIZED. The token itself is not shown again.',
    auth: [['registrationToken']],
    responseHeaders: NO_STORE,
    params: clientParams,
    operation: `query ClientRegistration($clientId: ID!) { clientRegistration(clientId: $clientId) { ...ClientRegistrationFields } }
${REGISTRATION_FIELDS}`,
    variables: ({ params }) => ({ clientId: params.clientId }),
    result: ({ clientRegistration }) => clientRegistration,
    status: 200,
    response: z.object(clientInformation).strict(),
    errors: ['UNAUTHORIZED'],
  }),
  defineRoute({
    method: 'PUT',
    path: '/ob/register/{client_id}',
    tag: 'Open Banking',
    summary: "Replace a TPP's registration (RFC 7592)",
    description:
      'With the registration access token of this client. The whole metadata is sent again (keys, redirect URIs, webhook URL); an omitted webhook_url is removed. ' +
      'client_id may be sent and must then be the path’s. The name and software_id stay the directory’s. Rotating keys: send the new set, old keys stop verifying at once.',
    auth: [['registrationToken']],
    responseHeaders: NO_STORE,
    params: clientParams,
    body: z
      .object({ client_id: z.string().nullish().describe('When sent, the path’s client_id.'), ...METADATA })
      .strict(),
    operation: `mutation UpdateClientRegistration($clientId: ID!, $input: ClientRegistrationUpdateInput!) {
  updateClientRegistration(clientId: $clientId, input: $input) { ...ClientRegistrationFields }
}
${REGISTRATION_FIELDS}`,
    variables: ({ params, body }) => ({ clientId: params.clientId, input: body }),
    result: ({ updateClientRegistration }) => updateClientRegistration,
    status: 200,
    response: z.object(clientInformation).strict(),
    errors: ['UNAUTHORIZED', ...ERRORS_OF_METADATA],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ob/register/{client_id}',
    tag: 'Open Banking',
    summary: "Delete a TPP's registration (RFC 7592)",
    description:
      'With the registration access token of this client. The TPP is DISABLED for good: the registration and client tokens, and every code and token of its consents, are revoked at once; ' +
      'its client assertions are refused (INVALID_CLIENT).',
    auth: [['registrationToken']],
    params: clientParams,
    operation: `mutation DeleteClientRegistration($clientId: ID!) { deleteClientRegistration(clientId: $clientId) }`,
    variables: ({ params }) => ({ clientId: params.clientId }),
    status: 204,
    errors: ['UNAUTHORIZED'],
  }),
];
