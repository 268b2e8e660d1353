import { Arg, Ctx, Field, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { SubgraphContext } from '@gateway/federation';
import type { PushedAuthorizationService } from './par.service';

@ObjectType('PushedAuthorizationResponse', { description: 'RFC 9126 2.2: where the authorization request now waits.' })
export class PushedAuthorizationResponse {
  @Field({
    description:
      'urn:ietf:params:oauth:request_uri:…: send the customer to {issuer}/ob/auth?client_id=…&request_uri=….',
  })
  requestUri!: string;

  @Field(() => Int, { description: 'Seconds the request_uri may be redeemed in: 60.' })
  expiresIn!: number;
}

const optional = (description: string) => ({ nullable: true, description }) as const;

/** POST /ob/par and the authorization endpoint's request_uri (GET /ob/auth) map onto these. */
export function createPushedAuthorizationResolver(service: PushedAuthorizationService) {
  @Resolver()
  class PushedAuthorizationResolver {
    @Mutation(() => PushedAuthorizationResponse, {
      description:
        'Pushes a fapi2 client’s authorization request (RFC 9126) for one of its consents, with private_key_jwt client authentication. ' +
        'Public (no credential header): the assertion is the credential. Errors: INVALID_CLIENT, VALIDATION_ERROR (response_type, scope, a missing field), ' +
        'PKCE_METHOD_REJECTED, INVALID_REDIRECT_URI, CONSENT_NOT_FOUND, CONSENT_ALREADY_DECIDED, CONSENT_EXPIRED, TPP_SUSPENDED, invalid_dpop_proof, use_dpop_nonce.',
    })
    async pushAuthorizationRequest(
      @Arg('responseType', { description: 'code.' }) responseType: string,
      @Arg('clientId', { description: 'The client (tpp_…), the assertion’s iss.' }) clientId: string,
      @Arg('redirectUri', { description: 'Exactly one of the client’s registered redirect URIs.' }) redirectUri: string,
      @Arg('state', { description: 'Anti-CSRF value, 1-512 characters, returned with the code.' }) state: string,
      @Arg('codeChallenge', { description: 'PKCE S256 challenge (43 characters).' }) codeChallenge: string,
      @Arg('codeChallengeMethod', { description: 'S256.' }) codeChallengeMethod: string,
      @Arg('consentId', { description: 'The consent (con_…) the customer is to authorise.' }) consentId: string,
      @Arg('scope', () => String, optional('Space-separated; each one of the consent’s scopes.')) scope: string | null,
      @Arg(
        'dpopJkt',
        () => String,
        optional('RFC 9449 10: the thumbprint of the DPoP key the code will be redeemed with.'),
      )
      dpopJkt: string | null,
      @Arg('clientAssertionType', () => String, optional('urn:ietf:params:oauth:client-assertion-type:jwt-bearer.'))
      clientAssertionType: string | null,
      @Arg('clientAssertion', () => String, optional('The private_key_jwt client assertion (aud: the issuer).'))
      clientAssertion: string | null,
      @Arg(
        'dpopProof',
        () => String,
        optional('A DPoP proof (htm POST, htu {issuer}/ob/par): binds the code to its key.'),
      )
      dpopProof: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<PushedAuthorizationResponse> {
      const pushed = await service.push(context.em, {
        responseType,
        clientId,
        redirectUri,
        state,
        codeChallenge,
        codeChallengeMethod,
        consentId,
        scope,
        dpopJkt,
        clientAssertionType,
        clientAssertion,
        dpopProof,
      });
      context.logger.info(
        { consent: consentId, tpp: clientId, request_id: context.requestId },
        'authorization request pushed',
      );
      return pushed;
    }

    @Mutation(() => String, {
      description:
        'The authorization endpoint (GET /ob/auth?client_id&request_uri, RFC 9126 4): redeems a pushed request once and answers the consent id whose page opens. ' +
        'Public: the browser brings it. Errors: INVALID_REQUEST_URI (unknown, used, expired or of another client), CONSENT_ALREADY_DECIDED, CONSENT_EXPIRED.',
    })
    async redeemPushedAuthorizationRequest(
      @Arg('clientId', { description: 'The client (tpp_…) that pushed it.' }) clientId: string,
      @Arg('requestUri', { description: 'The request_uri POST /ob/par answered.' }) requestUri: string,
      @Ctx() context: SubgraphContext,
    ): Promise<string> {
      const consentId = await service.redeem(context.em, { clientId, requestUri });
      context.logger.info(
        { consent: consentId, tpp: clientId, request_id: context.requestId },
        'pushed request redeemed',
      );
      return consentId;
    }
  }
  return PushedAuthorizationResolver;
}
