import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { SubgraphContext } from '@gateway/federation';
import { issueClientToken } from './client-credentials';
import { revokeToken } from './revocation';
import type { TokenService } from './token.service';
import { ClientTokenResponse, TokenResponse } from './token.type';

const ERRORS =
  'Errors: VALIDATION_ERROR, INVALID_GRANT, PKCE_INVALID, TOKEN_REVOKED, CONSENT_REVOKED, CONSENT_EXPIRED, TPP_SUSPENDED, ' +
  'INVALID_CLIENT (client authentication failed or missing), RATE_LIMITED (30 per minute per TPP).';

const CLIENT_AUTH =
  'A spec TPP is a public client and sends neither clientAssertionType nor clientAssertion; a fapi2 TPP must send both (private_key_jwt, RFC 7523).';

/** The client authentication arguments every grant takes (RFC 7521 4.2). */
const ASSERTION_TYPE = {
  nullable: true,
  description: 'private_key_jwt (fapi2 TPPs): urn:ietf:params:oauth:client-assertion-type:jwt-bearer.',
} as const;
const ASSERTION = {
  nullable: true,
  description:
    "private_key_jwt (fapi2 TPPs): a JWT signed (ES256, PS256 or EdDSA) by a key of the TPP's jwks named by kid; iss = sub = the TPP id, aud = the issuer " +
    '(or the token endpoint), exp at most 60 s ahead, a jti never used before.',
} as const;

const DPOP_PROOF = {
  nullable: true,
  description:
    "The request's DPoP proof (RFC 9449; the DPoP header of POST /ob/token): htm POST, htu {issuer}/ob/token, iat within ±10 s, a jti never used, " +
    'the server nonce when required. Required from fapi2 TPPs; the tokens issued are then bound to its key (token_type DPoP).',
} as const;

/**
 * The token endpoint as GraphQL (POST /ob/token maps onto these). Public: a spec TPP is a public
 * client without a secret (spec), so no credential header is read; the code or refresh token and,
 * for a code, the PKCE verifier are the proof. A fapi2 TPP also authenticates with a signed client
 * assertion in the arguments (private_key_jwt). Logs name the consent, never a token, verifier or
 * assertion.
 */
export function createTokenResolver(service: TokenService) {
  @Resolver()
  class TokenResolver {
    @Mutation(() => TokenResponse, {
      description:
        'grant_type=authorization_code: redeems the single-use code (60 s) the customer brought back to redirect_uri for the first access and refresh tokens of the consent. ' +
        `Public, no credential header. A code presented a second time is refused and revokes every token issued from it. ${CLIENT_AUTH} ${ERRORS}`,
    })
    async exchangeAuthorizationCode(
      @Arg('code', { description: 'The code from the redirect (oac_…).' }) code: string,
      @Arg('redirectUri', { description: 'Exactly the redirect_uri of the consent request.' }) redirectUri: string,
      @Arg('consentId', { description: 'The consent the code was issued for (con_…).' }) consentId: string,
      @Arg('codeVerifier', {
        description:
          'The PKCE verifier whose S256 challenge the consent request carried: 43-128 characters of A-Z a-z 0-9 - . _ ~.',
      })
      codeVerifier: string,
      @Arg('clientId', () => String, {
        nullable: true,
        description:
          'Optional: the TPP id (tpp_…), as OAuth public clients send it; when sent it must be the consent’s TPP.',
      })
      clientId: string | null,
      @Arg('clientAssertionType', () => String, ASSERTION_TYPE) clientAssertionType: string | null,
      @Arg('clientAssertion', () => String, ASSERTION) clientAssertion: string | null,
      @Arg('dpopProof', () => String, DPOP_PROOF) dpopProof: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<TokenResponse> {
      const tokens = await service.exchangeCode(context.em, {
        code,
        redirectUri,
        consentId,
        codeVerifier,
        clientId,
        clientAssertionType,
        clientAssertion,
        dpopProof,
      });
      context.logger.info({ consent: consentId, request_id: context.requestId }, 'authorization code redeemed');
      return tokens;
    }

    @Mutation(() => TokenResponse, {
      description:
        'grant_type=refresh_token: rotates the pair. The refresh token is single use: the answer carries a new one, and the old one and the previous access token stop working at once. ' +
        `An already rotated refresh token presented again revokes every token of the grant (TOKEN_REVOKED). Public, no credential header. ${CLIENT_AUTH} ${ERRORS}`,
    })
    async refreshAccessToken(
      @Arg('refreshToken', { description: 'The latest refresh token of the grant (rt_…).' }) refreshToken: string,
      @Arg('consentId', { description: 'The consent the token belongs to (con_…).' }) consentId: string,
      @Arg('clientId', () => String, {
        nullable: true,
        description: 'Optional: the TPP id (tpp_…); when sent it must be the consent’s TPP.',
      })
      clientId: string | null,
      @Arg('clientAssertionType', () => String, ASSERTION_TYPE) clientAssertionType: string | null,
      @Arg('clientAssertion', () => String, ASSERTION) clientAssertion: string | null,
      @Arg('dpopProof', () => String, DPOP_PROOF) dpopProof: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<TokenResponse> {
      const tokens = await service.refresh(context.em, {
        refreshToken,
        consentId,
        clientId,
        clientAssertionType,
        clientAssertion,
        dpopProof,
      });
      context.logger.info({ consent: consentId, request_id: context.requestId }, 'tokens refreshed');
      return tokens;
    }

    @Mutation(() => ClientTokenResponse, {
      description:
        'grant_type=client_credentials (fapi2 TPPs only, after private_key_jwt client authentication): an access token (cat_…) for the TPP itself, ' +
        'used where a spec TPP uses its tpk_ (creating and reading consents, reading payment orders). ' +
        'Errors: INVALID_CLIENT (no or a failing assertion, or a spec TPP), VALIDATION_ERROR (unknown scope), TPP_SUSPENDED, RATE_LIMITED.',
    })
    async requestClientCredentialsToken(
      @Arg('scope', () => String, {
        nullable: true,
        description: 'Space-separated subset of accounts and payments; both when omitted.',
      })
      scope: string | null,
      @Arg('clientId', () => String, {
        nullable: true,
        description: 'Optional: the TPP id (tpp_…); when sent it must be the assertion’s iss and sub.',
      })
      clientId: string | null,
      @Arg('clientAssertionType', () => String, ASSERTION_TYPE) clientAssertionType: string | null,
      @Arg('clientAssertion', () => String, ASSERTION) clientAssertion: string | null,
      @Arg('dpopProof', () => String, DPOP_PROOF) dpopProof: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<ClientTokenResponse> {
      const token = await issueClientToken(context.em, service, {
        scope,
        clientId,
        clientAssertionType,
        clientAssertion,
        dpopProof,
      });
      context.logger.info({ request_id: context.requestId, scope: token.scope }, 'client_credentials token issued');
      return token;
    }

    @Mutation(() => Boolean, {
      description:
        'Token revocation (RFC 7009; POST /ob/revoke): a consent’s access token (itself), refresh token (with every token of its grant) or a fapi2 TPP’s own cat_ token. ' +
        'Public: a fapi2 TPP authenticates with private_key_jwt (required for its tokens), a spec TPP is a public client. true also for an unknown, expired or revoked token (RFC 7009 2.2). ' +
        'Errors: INVALID_CLIENT (a failing assertion, a fapi2 token without one, or another client’s token), VALIDATION_ERROR, TPP_SUSPENDED, RATE_LIMITED.',
    })
    async revokeToken(
      @Arg('token', { description: 'The token to revoke (at_…, rt_… or cat_…).' }) token: string,
      @Arg('tokenTypeHint', () => String, {
        nullable: true,
        description: 'access_token or refresh_token (RFC 7009 2.1): a hint only, every kind is looked up.',
      })
      tokenTypeHint: string | null,
      @Arg('clientId', () => String, {
        nullable: true,
        description: 'The TPP id (tpp_…); when sent it must be the token’s client.',
      })
      clientId: string | null,
      @Arg('clientAssertionType', () => String, ASSERTION_TYPE) clientAssertionType: string | null,
      @Arg('clientAssertion', () => String, ASSERTION) clientAssertion: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<boolean> {
      await revokeToken(context.em, service.clients, {
        token,
        tokenTypeHint,
        clientId,
        clientAssertionType,
        clientAssertion,
      });
      context.logger.info({ request_id: context.requestId, client: clientId }, 'token revocation asked');
      return true;
    }
  }
  return TokenResolver;
}
