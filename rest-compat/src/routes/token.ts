import { z } from 'zod';
import { defineRoute } from '../route';

const GRANTS = ['authorization_code', 'refresh_token'] as const;
type Grant = (typeof GRANTS)[number];

/** spec "Token endpoint forms": every field of the grant is required. */
const REQUIRED: Record<Grant, readonly string[]> = {
  authorization_code: ['code', 'redirect_uri', 'consent_id', 'code_verifier'],
  refresh_token: ['refresh_token', 'consent_id'],
};

const TOKEN_OPERATIONS = `mutation Token($code: String!, $redirectUri: String!, $consentId: String!, $codeVerifier: String!, $clientId: String) {
  exchangeAuthorizationCode(code: $code, redirectUri: $redirectUri, consentId: $consentId, codeVerifier: $codeVerifier, clientId: $clientId) { ...TokenFields }
}
mutation TokenRefresh($refreshToken: String!, $consentId: String!, $clientId: String) {
  refreshAccessToken(refreshToken: $refreshToken, consentId: $consentId, clientId: $clientId) { ...TokenFields }
}
fragment TokenFields on TokenResponse { accessToken refreshToken tokenType expiresIn scope }`;

const field = (description: string) => z.string().optional().describe(description);

export const tokenRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/token',
    tag: 'Open Banking',
    summary: 'Exchange an authorization code, or refresh tokens',
    description:
      'OAuth 2.0 token endpoint for public clients (no client secret; PKCE S256), application/x-www-form-urlencoded only (a JSON body is refused). ' +
      'grant_type=authorization_code takes code, redirect_uri, consent_id and code_verifier; grant_type=refresh_token takes refresh_token and consent_id. ' +
      'client_id may be sent (OAuth public clients do) and must then be the consent’s TPP; other parameters are ignored (RFC 6749 3.2) and a parameter sent twice is refused. ' +
      'Codes are single use and live 60 seconds; a code presented again is refused and revokes every token issued from it. ' +
      'Refresh tokens are single use: each refresh returns a new pair and the previous refresh and access tokens stop working at once; ' +
      'an already rotated refresh token presented again revokes every token of the grant (401 TOKEN_REVOKED). ' +
      'Every answer, errors included, carries Cache-Control: no-store and Pragma: no-cache. 30 requests per minute per TPP. ' +
      'Errors use this API\'s error object ({error: {code, message, detail, request_id}}), not RFC 6749\'s {"error": "invalid_grant"}. ' +
      'RFC 6749 equivalents: INVALID_GRANT ≈ invalid_grant (unknown, expired or used code; code of another consent or redirect_uri; unknown or expired refresh token); ' +
      'PKCE_INVALID ≈ invalid_grant (code_verifier does not match the challenge); VALIDATION_ERROR ≈ invalid_request (missing or malformed field, detail names it) ' +
      'or unsupported_grant_type (detail names grant_type); TOKEN_REVOKED, CONSENT_REVOKED and CONSENT_EXPIRED ≈ invalid_grant.',
    auth: [],
    bodyTypes: ['form'],
    responseHeaders: { 'cache-control': 'no-store', pragma: 'no-cache' },
    body: z
      .object({
        grant_type: z.enum(GRANTS, {
          error: (issue) =>
            issue.input === undefined ? 'required' : 'unsupported: use authorization_code or refresh_token',
        }),
        code: field('authorization_code: the code from the redirect (oac_…).'),
        redirect_uri: field('authorization_code: exactly the redirect_uri of the consent request.'),
        consent_id: field('The consent (con_…) the code or refresh token was issued for.'),
        code_verifier: field(
          'authorization_code: the PKCE verifier, 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1).',
        ),
        refresh_token: field('refresh_token: the latest refresh token of the grant (rt_…).'),
        client_id: field('Optional: the TPP id (tpp_…); when sent it must be the consent’s TPP.'),
      })
      .superRefine((body, ctx) => {
        // RFC 6749 3.2: a parameter sent without a value counts as omitted.
        for (const name of REQUIRED[body.grant_type]) {
          if (!body[name as keyof typeof body])
            ctx.addIssue({ code: 'custom', path: [name], message: `required with grant_type=${body.grant_type}` });
        }
      }),
    operation: TOKEN_OPERATIONS,
    operationName: ({ body }) => (body.grantType === 'authorization_code' ? 'Token' : 'TokenRefresh'),
    variables: ({ body }) =>
      body.grantType === 'authorization_code'
        ? {
            code: body.code,
            redirectUri: body.redirectUri,
            consentId: body.consentId,
            codeVerifier: body.codeVerifier,
            clientId: body.clientId || null,
          }
        : { refreshToken: body.refreshToken, consentId: body.consentId, clientId: body.clientId || null },
    result: (data) => data.exchangeAuthorizationCode ?? data.refreshAccessToken,
    status: 200,
    response: z
      .object({
        access_token: z.string().describe('Opaque (at_…), valid 15 minutes.'),
        refresh_token: z.string().describe('Opaque (rt_…), valid 90 days, single use.'),
        token_type: z.literal('Bearer'),
        expires_in: z.literal(900).describe('Seconds the access token lives.'),
        scope: z.string().describe('Granted scopes separated by single spaces.'),
      })
      .strict(),
    errors: ['INVALID_GRANT', 'PKCE_INVALID', 'TOKEN_REVOKED', 'CONSENT_REVOKED', 'CONSENT_EXPIRED', 'TPP_SUSPENDED'],
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    tag: 'Open Banking',
    summary: 'Authorization server metadata (RFC 8414)',
    description:
      'Discovery for TPPs. issuer is the public base URL, the same value as the iss parameter of every authorization response (RFC 9207). ' +
      'There is no generic authorization endpoint taking request parameters: the TPP pushes its request with POST /ob/consents and sends the customer to the ' +
      'consent_url it gets back, which is authorization_endpoint/{consent_id}.',
    auth: [],
    operation: `query AuthorizationServerMetadata { authorizationServerMetadata {
  issuer authorizationEndpoint tokenEndpoint responseTypesSupported grantTypesSupported codeChallengeMethodsSupported
  tokenEndpointAuthMethodsSupported authorizationResponseIssParameterSupported scopesSupported serviceDocumentation
} }`,
    variables: () => ({}),
    result: ({ authorizationServerMetadata }) => authorizationServerMetadata,
    status: 200,
    response: z
      .object({
        issuer: z.string(),
        authorization_endpoint: z.string().describe('{issuer}/ob/auth: base of the per-consent consent_url.'),
        token_endpoint: z.string().describe('{issuer}/ob/token'),
        response_types_supported: z.array(z.string()),
        grant_types_supported: z.array(z.string()),
        code_challenge_methods_supported: z.array(z.string()),
        token_endpoint_auth_methods_supported: z.array(z.string()),
        authorization_response_iss_parameter_supported: z.boolean(),
        scopes_supported: z.array(z.string()),
        service_documentation: z.string(),
      })
      .strict(),
    errors: [],
  }),
];
