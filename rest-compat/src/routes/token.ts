import { z } from 'zod';
import { defineRoute } from '../route';

const GRANTS = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
type Grant = (typeof GRANTS)[number];

/**
 * spec "Token endpoint forms": every field of the grant is required. client_credentials needs only
 * client authentication, which open-banking checks (INVALID_CLIENT when it is missing).
 */
const REQUIRED: Record<Grant, readonly string[]> = {
  authorization_code: ['code', 'redirect_uri', 'consent_id', 'code_verifier'],
  refresh_token: ['refresh_token', 'consent_id'],
  client_credentials: [],
};

const OPERATION_OF: Record<Grant, string> = {
  authorization_code: 'Token',
  refresh_token: 'TokenRefresh',
  client_credentials: 'TokenClientCredentials',
};

const CLIENT_AUTH_ARGS =
  'clientId: $clientId, clientAssertionType: $clientAssertionType, clientAssertion: $clientAssertion, dpopProof: $dpopProof';
const CLIENT_AUTH_VARS =
  '$clientId: String, $clientAssertionType: String, $clientAssertion: String, $dpopProof: String';

const TOKEN_OPERATIONS = `mutation Token($code: String!, $redirectUri: String!, $consentId: String!, $codeVerifier: String!, ${CLIENT_AUTH_VARS}) {
  exchangeAuthorizationCode(code: $code, redirectUri: $redirectUri, consentId: $consentId, codeVerifier: $codeVerifier, ${CLIENT_AUTH_ARGS}) { ...TokenFields }
}
mutation TokenRefresh($refreshToken: String!, $consentId: String!, ${CLIENT_AUTH_VARS}) {
  refreshAccessToken(refreshToken: $refreshToken, consentId: $consentId, ${CLIENT_AUTH_ARGS}) { ...TokenFields }
}
mutation TokenClientCredentials($scope: String, ${CLIENT_AUTH_VARS}) {
  requestClientCredentialsToken(scope: $scope, ${CLIENT_AUTH_ARGS}) { accessToken tokenType expiresIn scope }
}
fragment TokenFields on TokenResponse { accessToken refreshToken tokenType expiresIn scope }`;

const field = (description: string) => z.string().optional().describe(description);

export const tokenRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/token',
    tag: 'Open Banking',
    summary: 'Exchange an authorization code, refresh tokens, or get a fapi2 TPP’s own token',
    description:
      'OAuth 2.0 token endpoint, application/x-www-form-urlencoded only (a JSON body is refused). ' +
      'grant_type=authorization_code takes code, redirect_uri, consent_id and code_verifier; grant_type=refresh_token takes refresh_token and consent_id; ' +
      'grant_type=client_credentials (fapi2 TPPs) takes an optional scope (accounts and/or payments, both by default) and answers an access token (cat_…) for the TPP itself, no refresh token. ' +
      'Client authentication: a TPP of security_profile spec is a public client (no client secret; PKCE S256) and sends no assertion. ' +
      'A fapi2 TPP authenticates every grant with private_key_jwt (RFC 7523): client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer and ' +
      'client_assertion, a JWT signed (ES256, PS256, EdDSA; never none or HMAC) by a key of its registered jwks named by kid, with iss = sub = its client_id, ' +
      'aud = the issuer (the token endpoint URL is accepted too), exp at most 60 s ahead and not past, and a jti never used before (a replay is refused on every instance). ' +
      'A fapi2 TPP without an assertion, a spec TPP with one, or any failing rule: 401 INVALID_CLIENT naming the rule. ' +
      'DPoP (RFC 9449): a fapi2 TPP sends a DPoP header with every grant (a proof with htm POST, htu {issuer}/ob/token, iat within ±10 s, a jti never used, and the nonce of the last DPoP-Nonce header when the server requires one); ' +
      'the tokens issued are bound to the proof’s key (token_type DPoP): use them only with Authorization: DPoP and a proof signed by that key; a bound refresh token is refreshed only with a proof of its key, and a code pushed with dpop_jkt (POST /ob/par) is redeemed only with a proof of that key. ' +
      'A spec TPP may send a proof too, and then gets bound tokens. A proof that fails a rule: 400 invalid_dpop_proof; one without the current nonce: 400 use_dpop_nonce; both carry WWW-Authenticate: DPoP error=… and the nonce to use in DPoP-Nonce. ' +
      'client_id may be sent (OAuth clients do) and must then be the consent’s TPP (and the assertion’s iss); other parameters are ignored (RFC 6749 3.2) and a parameter sent twice is refused. ' +
      'Codes are single use and live 60 seconds; a code presented again is refused and revokes every token issued from it. ' +
      'Refresh tokens are single use: each refresh returns a new pair and the previous refresh and access tokens stop working at once; ' +
      'an already rotated refresh token presented again revokes every token of the grant (401 TOKEN_REVOKED). ' +
      'Every answer, errors included, carries Cache-Control: no-store and Pragma: no-cache. 30 requests per minute per TPP. ' +
      'Errors use this API\'s error object ({error: {code, message, detail, request_id}}), not RFC 6749\'s {"error": "invalid_grant"}. ' +
      'RFC 6749 equivalents: INVALID_GRANT ≈ invalid_grant (unknown, expired or used code; code of another consent or redirect_uri; unknown or expired refresh token); ' +
      'PKCE_INVALID ≈ invalid_grant (code_verifier does not match the challenge); VALIDATION_ERROR ≈ invalid_request (missing or malformed field, detail names it) ' +
      'or unsupported_grant_type (detail names grant_type) or invalid_scope (detail names scope); TOKEN_REVOKED, CONSENT_REVOKED and CONSENT_EXPIRED ≈ invalid_grant; ' +
      'INVALID_CLIENT = invalid_client.',
    auth: [],
    bodyTypes: ['form'],
    dpopProof: true,
    // RFC 9449 5, 8: the token endpoint answers DPoP refusals as OAuth errors (400), with the challenge.
    statusOverrides: { invalid_dpop_proof: 400, use_dpop_nonce: 400 },
    responseHeaders: { 'cache-control': 'no-store', pragma: 'no-cache' },
    body: z
      .object({
        grant_type: z.enum(GRANTS, {
          error: (issue) =>
            issue.input === undefined
              ? 'required'
              : 'unsupported: use authorization_code, refresh_token or client_credentials',
        }),
        code: field('authorization_code: the code from the redirect (oac_…).'),
        redirect_uri: field('authorization_code: exactly the redirect_uri of the consent request.'),
        consent_id: field('The consent (con_…) the code or refresh token was issued for.'),
        code_verifier: field(
          'authorization_code: the PKCE verifier, 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1).',
        ),
        refresh_token: field('refresh_token: the latest refresh token of the grant (rt_…).'),
        client_id: field('Optional: the TPP id (tpp_…); when sent it must be the consent’s TPP.'),
        scope: field('client_credentials: accounts and/or payments, space-separated (both when omitted).'),
        client_assertion_type: field(
          'fapi2 TPPs (private_key_jwt): urn:ietf:params:oauth:client-assertion-type:jwt-bearer. Never sent by spec TPPs.',
        ),
        client_assertion: field(
          'fapi2 TPPs (private_key_jwt): the signed client assertion (a JWT; see above). Never sent by spec TPPs.',
        ),
      })
      .superRefine((body, ctx) => {
        // RFC 6749 3.2: a parameter sent without a value counts as omitted.
        for (const name of REQUIRED[body.grant_type]) {
          if (!body[name as keyof typeof body])
            ctx.addIssue({ code: 'custom', path: [name], message: `required with grant_type=${body.grant_type}` });
        }
      }),
    operation: TOKEN_OPERATIONS,
    operationName: ({ body }) => OPERATION_OF[body.grantType],
    variables: ({ body, headers }) => {
      // RFC 6749 3.2: a parameter sent without a value counts as omitted.
      const client = {
        clientId: body.clientId || null,
        clientAssertionType: body.clientAssertionType || null,
        clientAssertion: body.clientAssertion || null,
        dpopProof: headers.dpop ?? null,
      };
      if (body.grantType === 'authorization_code')
        return {
          code: body.code,
          redirectUri: body.redirectUri,
          consentId: body.consentId,
          codeVerifier: body.codeVerifier,
          ...client,
        };
      if (body.grantType === 'refresh_token')
        return { refreshToken: body.refreshToken, consentId: body.consentId, ...client };
      return { scope: body.scope || null, ...client };
    },
    result: (data) => data.exchangeAuthorizationCode ?? data.refreshAccessToken ?? data.requestClientCredentialsToken,
    status: 200,
    response: z
      .object({
        access_token: z
          .string()
          .describe('Opaque, valid 15 minutes: at_… for a consent, cat_… for a fapi2 TPP itself (client_credentials).'),
        refresh_token: z
          .string()
          .optional()
          .describe('Opaque (rt_…), valid 90 days, single use. Not issued for client_credentials.'),
        token_type: z
          .enum(['Bearer', 'DPoP'])
          .describe('DPoP when the tokens are bound to the key of the request’s DPoP proof (always for fapi2 TPPs).'),
        expires_in: z.literal(900).describe('Seconds the access token lives.'),
        scope: z.string().describe('Granted scopes separated by single spaces.'),
      })
      .strict(),
    errors: [
      'INVALID_GRANT',
      'PKCE_INVALID',
      'TOKEN_REVOKED',
      'CONSENT_REVOKED',
      'CONSENT_EXPIRED',
      'TPP_SUSPENDED',
      'INVALID_CLIENT',
      'invalid_dpop_proof',
      'use_dpop_nonce',
    ],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/revoke',
    tag: 'Open Banking',
    summary: 'Revoke a token (RFC 7009)',
    description:
      'application/x-www-form-urlencoded only. token: an access token (at_…: that token only), a refresh token (rt_…: every token of its grant) or a fapi2 TPP’s own token (cat_…); ' +
      'token_type_hint (access_token or refresh_token) is optional and only a hint. The consent itself stays as it is (DELETE /ob/consents/{consent_id} ends it). ' +
      'A fapi2 TPP authenticates as at the token endpoint (private_key_jwt), and must for its tokens; a spec TPP is a public client (client_id, when sent, must be the token’s). ' +
      'Answers 200 with an empty body also for an unknown, expired or already revoked token (RFC 7009 2.2). Another client’s token, a fapi2 token without client authentication, ' +
      'or a failing assertion: 401 INVALID_CLIENT, and nothing is revoked. Cache-Control: no-store.',
    auth: [],
    bodyTypes: ['form'],
    responseHeaders: { 'cache-control': 'no-store', pragma: 'no-cache' },
    body: z
      .object({
        token: z.string().describe('The token to revoke.'),
        token_type_hint: field('access_token or refresh_token.'),
        client_id: field('The TPP id (tpp_…); when sent it must be the token’s client.'),
        client_assertion_type: field('fapi2 TPPs: urn:ietf:params:oauth:client-assertion-type:jwt-bearer.'),
        client_assertion: field('fapi2 TPPs: the signed client assertion, as at the token endpoint.'),
      })
      .strict(),
    operation: `mutation RevokeToken($token: String!, $tokenTypeHint: String, $clientId: String, $clientAssertionType: String, $clientAssertion: String) {
  revokeToken(token: $token, tokenTypeHint: $tokenTypeHint, clientId: $clientId, clientAssertionType: $clientAssertionType, clientAssertion: $clientAssertion)
}`,
    // RFC 6749 3.2: a parameter sent without a value counts as omitted.
    variables: ({ body }) => ({
      token: body.token,
      tokenTypeHint: body.tokenTypeHint || null,
      clientId: body.clientId || null,
      clientAssertionType: body.clientAssertionType || null,
      clientAssertion: body.clientAssertion || null,
    }),
    result: () => ({}),
    status: 200,
    response: z.object({}).strict().describe('Empty: the token is revoked, or was not valid anyway.'),
    errors: ['INVALID_CLIENT', 'TPP_SUSPENDED'],
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    tag: 'Open Banking',
    summary: 'Authorization server metadata (RFC 8414)',
    description:
      'Discovery for TPPs. issuer is the public base URL, the same value as the iss parameter of every authorization response (RFC 9207). ' +
      'A spec TPP pushes its request with POST /ob/consents and sends the customer to the consent_url it gets back, authorization_endpoint/{consent_id}; ' +
      'a fapi2 TPP pushes it to pushed_authorization_request_endpoint (RFC 9126) and sends the customer to authorization_endpoint?client_id=…&request_uri=….',
    auth: [],
    operation: `query AuthorizationServerMetadata { authorizationServerMetadata {
  issuer authorizationEndpoint tokenEndpoint responseTypesSupported grantTypesSupported codeChallengeMethodsSupported
  tokenEndpointAuthMethodsSupported tokenEndpointAuthSigningAlgValuesSupported registrationEndpoint
  revocationEndpoint revocationEndpointAuthMethodsSupported
  pushedAuthorizationRequestEndpoint requirePushedAuthorizationRequests dpopSigningAlgValuesSupported
  authorizationResponseIssParameterSupported scopesSupported serviceDocumentation
} }`,
    variables: () => ({}),
    // RFC 8414 2: an endpoint the server does not offer is left out, not null.
    result: ({ authorizationServerMetadata: { registrationEndpoint, ...metadata } }) =>
      registrationEndpoint ? { ...metadata, registrationEndpoint } : metadata,
    status: 200,
    response: z
      .object({
        issuer: z.string(),
        authorization_endpoint: z
          .string()
          .describe(
            '{issuer}/ob/auth: takes client_id and request_uri (fapi2), and is the base of a spec consent_url.',
          ),
        token_endpoint: z.string().describe('{issuer}/ob/token'),
        response_types_supported: z.array(z.string()),
        grant_types_supported: z.array(z.string()),
        code_challenge_methods_supported: z.array(z.string()),
        token_endpoint_auth_methods_supported: z
          .array(z.string())
          .describe('none (spec TPPs, public clients) and private_key_jwt (fapi2 TPPs).'),
        token_endpoint_auth_signing_alg_values_supported: z
          .array(z.string())
          .describe('Algorithms of private_key_jwt client assertions: ES256, PS256, EdDSA.'),
        registration_endpoint: z
          .string()
          .optional()
          .describe(
            '{issuer}/ob/register (RFC 7591), present only when the operator enabled registration (OB_DIRECTORY_JWKS).',
          ),
        revocation_endpoint: z.string().describe('{issuer}/ob/revoke (RFC 7009).'),
        revocation_endpoint_auth_methods_supported: z.array(z.string()).describe('none and private_key_jwt.'),
        pushed_authorization_request_endpoint: z.string().describe('{issuer}/ob/par (RFC 9126).'),
        require_pushed_authorization_requests: z
          .boolean()
          .describe('false server-wide (spec TPPs push with POST /ob/consents); every fapi2 TPP must use PAR.'),
        dpop_signing_alg_values_supported: z.array(z.string()).describe('ES256, PS256, EdDSA (RFC 9449).'),
        authorization_response_iss_parameter_supported: z.boolean(),
        scopes_supported: z.array(z.string()),
        service_documentation: z.string(),
      })
      .strict(),
    errors: [],
  }),
];
