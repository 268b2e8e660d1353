import { z } from 'zod';
import { defineRoute } from '../route';

const field = (description: string) => z.string().optional().describe(description);

/**
 * Pushed authorization requests (RFC 9126) of fapi2 TPPs: POST /ob/par takes the authorization
 * request with private_key_jwt client authentication; GET /ob/auth (the metadata's
 * authorization_endpoint) redeems the request_uri for the customer's browser.
 */
export const pushedAuthorizationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/par',
    tag: 'Open Banking',
    summary: 'Push an authorization request (fapi2 TPPs, RFC 9126)',
    description:
      'application/x-www-form-urlencoded only. A fapi2 TPP pushes the authorization request for one of its consents (AWAITING_AUTHORISATION) and authenticates as at the token endpoint ' +
      '(private_key_jwt: client_assertion_type and client_assertion, aud the issuer). The answer’s request_uri is then given to the customer’s browser as ' +
      '{issuer}/ob/auth?client_id=…&request_uri=…, which opens the consent page; it can be redeemed once, by this client, within expires_in (60) seconds. ' +
      'What is pushed is what counts: the approval redirects to this redirect_uri with this state, and the code is redeemed with this PKCE challenge’s verifier. ' +
      'A fapi2 TPP’s consent page opens only through a pushed request (PAR_REQUIRED otherwise). ' +
      'A DPoP header (htm POST, htu {issuer}/ob/par) or dpop_jkt binds the authorization code to that key (RFC 9449 10): it is then redeemed only with a proof signed by it; both sent must name the same key. ' +
      'Errors as the token endpoint’s: INVALID_CLIENT (no or a failing assertion, a spec TPP, or client_id not the assertion’s), VALIDATION_ERROR ≈ invalid_request ' +
      '(response_type other than code, a scope the consent does not request, a missing field), PKCE_METHOD_REJECTED, INVALID_REDIRECT_URI, invalid_dpop_proof and use_dpop_nonce (400, with WWW-Authenticate and DPoP-Nonce). ' +
      'Every answer carries Cache-Control: no-store.',
    auth: [],
    bodyTypes: ['form'],
    dpopProof: true,
    statusOverrides: { invalid_dpop_proof: 400, use_dpop_nonce: 400 },
    responseHeaders: { 'cache-control': 'no-store', pragma: 'no-cache' },
    body: z
      .object({
        response_type: z.string().describe('code'),
        client_id: z.string().describe('The client (tpp_…): the assertion’s iss and sub.'),
        redirect_uri: z.string().describe('Exactly one of the client’s registered redirect URIs.'),
        scope: field('Optional, space-separated: each one of the consent’s scopes.'),
        state: z.string().describe('Anti-CSRF value, 1-512 characters, returned with the code.'),
        code_challenge: z.string().describe('PKCE: BASE64URL(SHA-256(code_verifier)), 43 characters.'),
        code_challenge_method: z.string().describe('S256 (plain is refused: PKCE_METHOD_REJECTED).'),
        consent_id: z.string().describe('The consent (con_…) the customer is asked to authorise.'),
        dpop_jkt: field(
          'Optional (RFC 9449 10): the JWK SHA-256 thumbprint of the DPoP key the code is to be redeemed with.',
        ),
        client_assertion_type: field('urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
        client_assertion: field('The signed client assertion (private_key_jwt), as at the token endpoint.'),
      })
      .strict(),
    operation: `mutation PushAuthorizationRequest($responseType: String!, $clientId: String!, $redirectUri: String!, $scope: String, $state: String!,
  $codeChallenge: String!, $codeChallengeMethod: String!, $consentId: String!, $dpopJkt: String,
  $clientAssertionType: String, $clientAssertion: String, $dpopProof: String) {
  pushAuthorizationRequest(responseType: $responseType, clientId: $clientId, redirectUri: $redirectUri, scope: $scope, state: $state,
    codeChallenge: $codeChallenge, codeChallengeMethod: $codeChallengeMethod, consentId: $consentId, dpopJkt: $dpopJkt,
    clientAssertionType: $clientAssertionType, clientAssertion: $clientAssertion, dpopProof: $dpopProof) { requestUri expiresIn }
}`,
    // RFC 6749 3.2: a parameter sent without a value counts as omitted.
    variables: ({ body, headers }) => ({
      responseType: body.responseType,
      clientId: body.clientId,
      redirectUri: body.redirectUri,
      scope: body.scope || null,
      state: body.state,
      codeChallenge: body.codeChallenge,
      codeChallengeMethod: body.codeChallengeMethod,
      consentId: body.consentId,
      dpopJkt: body.dpopJkt || null,
      clientAssertionType: body.clientAssertionType || null,
      clientAssertion: body.clientAssertion || null,
      dpopProof: headers.dpop ?? null,
    }),
    result: (data) => data.pushAuthorizationRequest,
    status: 201,
    response: z
      .object({
        request_uri: z.string().describe('urn:ietf:params:oauth:request_uri:…'),
        expires_in: z.literal(60).describe('Seconds it may be redeemed in.'),
      })
      .strict(),
    errors: [
      'INVALID_CLIENT',
      'PKCE_METHOD_REJECTED',
      'INVALID_REDIRECT_URI',
      'CONSENT_NOT_FOUND',
      'CONSENT_ALREADY_DECIDED',
      'CONSENT_EXPIRED',
      'TPP_SUSPENDED',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/auth',
    tag: 'Open Banking: customer',
    summary: 'Authorization endpoint: open a pushed request (customer’s browser)',
    description:
      'The metadata’s authorization_endpoint, for fapi2 TPPs (RFC 9126 4): {issuer}/ob/auth?client_id=…&request_uri=…. The request_uri is redeemed once, ' +
      'by the client that pushed it, before it expires; a browser is then sent (303) to the consent page, and JSON gets where it would go. ' +
      'Public: the browser brings it. Other request parameters are refused: a fapi2 authorization request is pushed whole.',
    auth: [],
    query: z
      .object({
        client_id: z.string().describe('The client (tpp_…) that pushed the request.'),
        request_uri: z.string().describe('The request_uri POST /ob/par answered.'),
      })
      .strict(),
    page: 'A browser (any request not asking for JSON only) is answered 303 See Other to the consent page, or an error page when the request_uri is refused.',
    pageErrorStatuses: [400, 401, 409],
    operation: `mutation RedeemPushedAuthorizationRequest($clientId: String!, $requestUri: String!) {
  redeemPushedAuthorizationRequest(clientId: $clientId, requestUri: $requestUri)
}`,
    variables: ({ query }) => ({ clientId: query.clientId, requestUri: query.requestUri }),
    result: (data) => ({
      consentId: data.redeemPushedAuthorizationRequest,
      location: `/ob/auth/${encodeURIComponent(data.redeemPushedAuthorizationRequest)}`,
    }),
    status: 200,
    response: z
      .object({
        consent_id: z.string(),
        location: z.string().describe('The consent page (path under the issuer): where a browser is sent.'),
      })
      .strict(),
    errors: ['INVALID_REQUEST_URI', 'CONSENT_ALREADY_DECIDED', 'CONSENT_EXPIRED'],
  }),
];
