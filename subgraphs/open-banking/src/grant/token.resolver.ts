import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { SubgraphContext } from '@gateway/federation';
import type { TokenService } from './token.service';
import { TokenResponse } from './token.type';

const ERRORS =
  'Errors: VALIDATION_ERROR, INVALID_GRANT, PKCE_INVALID, TOKEN_REVOKED, CONSENT_REVOKED, CONSENT_EXPIRED, TPP_SUSPENDED, RATE_LIMITED (30 per minute per TPP).';

/**
 * The token endpoint as GraphQL (POST /ob/token maps onto these). Public: a TPP is a public
 * client without a secret (spec), so no credential is read; the code or refresh token and, for
 * a code, the PKCE verifier are the proof. Logs name the consent, never a token or verifier.
 */
export function createTokenResolver(service: TokenService) {
  @Resolver()
  class TokenResolver {
    @Mutation(() => TokenResponse, {
      description:
        'grant_type=authorization_code: redeems the single-use code (60 s) the customer brought back to redirect_uri for the first access and refresh tokens of the consent. ' +
        `Public, no credential. A code presented a second time is refused and revokes every token issued from it. ${ERRORS}`,
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
      @Ctx() context: SubgraphContext,
    ): Promise<TokenResponse> {
      const tokens = await service.exchangeCode(context.em, { code, redirectUri, consentId, codeVerifier, clientId });
      context.logger.info({ consent: consentId, request_id: context.requestId }, 'authorization code redeemed');
      return tokens;
    }

    @Mutation(() => TokenResponse, {
      description:
        'grant_type=refresh_token: rotates the pair. The refresh token is single use: the answer carries a new one, and the old one and the previous access token stop working at once. ' +
        `An already rotated refresh token presented again revokes every token of the grant (TOKEN_REVOKED). Public, no credential. ${ERRORS}`,
    })
    async refreshAccessToken(
      @Arg('refreshToken', { description: 'The latest refresh token of the grant (rt_…).' }) refreshToken: string,
      @Arg('consentId', { description: 'The consent the token belongs to (con_…).' }) consentId: string,
      @Arg('clientId', () => String, {
        nullable: true,
        description: 'Optional: the TPP id (tpp_…); when sent it must be the consent’s TPP.',
      })
      clientId: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<TokenResponse> {
      const tokens = await service.refresh(context.em, { refreshToken, consentId, clientId });
      context.logger.info({ consent: consentId, request_id: context.requestId }, 'tokens refreshed');
      return tokens;
    }
  }
  return TokenResolver;
}
