import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, invalid, parseInput, randomToken, safeEqual } from '@gateway/kernel';
import type { ClientAuthenticator } from '../client-auth/client-authentication';
import type { TokenEndpointProofs } from '../client-auth/token-endpoint-proofs';
import { ConsentEntity } from '../consent/consent.entity';
import { loadConsent } from '../consent/consent.moves';
import { assertS256Method } from '../consent/consent.rules';
import { effectiveConsentStatus } from '../consent/consent.type';
import { pushRules, redeemRules } from './par.rules';
import { PushedRequestEntity } from './pushed-request.entity';

/** RFC 9126 2.2: the request_uri's prefix. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** Seconds a pushed request may wait for the customer's browser (RFC 9126 2.2; FAPI 2.0: under 600). */
export const PUSHED_REQUEST_TTL_SECONDS = 60;

/** What POST /ob/par answers (RFC 9126 2.2). */
export interface PushedRequest {
  requestUri: string;
  expiresIn: number;
}

const badRequestUri = (detail: string) => new GatewayError('INVALID_REQUEST_URI', `request_uri: ${detail}`);

/**
 * Pushed authorization requests (RFC 9126) for fapi2 clients: the client authenticates
 * (private_key_jwt) and pushes the authorization request for one of its consents; the customer's
 * browser then brings only the client id and the request_uri to the authorization endpoint, which
 * redeems it once and opens the consent page. What was pushed is what the approval answers with:
 * the redirect_uri, state and PKCE challenge, and the DPoP key the code is bound to (RFC 9449 10).
 */
export class PushedAuthorizationService {
  constructor(
    private readonly clients: ClientAuthenticator,
    private readonly proofs: TokenEndpointProofs,
  ) {}

  async push(root: EntityManager, input: unknown, now = new Date()): Promise<PushedRequest> {
    const request = parseInput(pushRules, input);
    const proofKey = await this.proofs.keyOf(root, request.dpopProof, '/ob/par', now);
    const client = await this.clients.authenticate(root, request, now);
    if (!client)
      throw new GatewayError(
        'INVALID_CLIENT',
        'client authentication required: pushed authorization requests are for fapi2 clients, with private_key_jwt (client_assertion_type and client_assertion)',
      );
    if (!safeEqual(client.id, request.clientId))
      throw new GatewayError('INVALID_CLIENT', 'client_id must be the client the assertion authenticates');
    if (request.responseType !== 'code')
      throw invalid('response_type', 'only code is supported (RFC 6749 unsupported_response_type)');
    assertS256Method(request.codeChallengeMethod);
    if (!client.redirectUris.includes(request.redirectUri))
      throw new GatewayError(
        'INVALID_REDIRECT_URI',
        'redirect_uri: must be exactly (character for character) one of the client’s registered redirect URIs',
      );
    const consent = await loadConsent(root, request.consentId);
    if (!consent || consent.tppId !== client.id)
      throw new GatewayError('CONSENT_NOT_FOUND', `consent_id: no consent ${request.consentId} of this client`);
    assertAwaiting(consent, now);
    const asked = (request.scope ?? '').split(' ').filter(Boolean);
    const beyond = asked.filter((scope) => !consent.scopes.includes(scope as never));
    if (beyond.length > 0)
      throw invalid('scope', `${beyond.join(', ')} not requested by consent ${consent.id} (RFC 6749 invalid_scope)`);
    if (request.dpopJkt && proofKey && request.dpopJkt !== proofKey)
      throw this.proofs.refusal('dpop_jkt is not the thumbprint of the DPoP proof’s key (RFC 9449 10.1)', now);

    const pushed = root.fork().create(PushedRequestEntity, {
      requestUri: `${REQUEST_URI_PREFIX}${randomToken(32)}`,
      clientId: client.id,
      consentId: consent.id,
      redirectUri: request.redirectUri,
      state: request.state,
      codeChallenge: request.codeChallenge,
      dpopJkt: request.dpopJkt ?? proofKey ?? null,
      expiresAt: new Date(now.getTime() + PUSHED_REQUEST_TTL_SECONDS * 1000),
      usedAt: null,
      createdAt: now,
    });
    await root.fork().persistAndFlush(pushed);
    return { requestUri: pushed.requestUri, expiresIn: PUSHED_REQUEST_TTL_SECONDS };
  }

  /**
   * The authorization endpoint's redemption (RFC 9126 4): the pushed request becomes the
   * consent's authorization request, once. Refused without spending it when another client
   * presents it; refused when used or expired. Answers the consent whose page opens.
   */
  async redeem(root: EntityManager, input: unknown, now = new Date()): Promise<string> {
    const request = parseInput(redeemRules, input);
    const pushed = await root.findOne(
      PushedRequestEntity,
      { requestUri: request.requestUri },
      { disableIdentityMap: true },
    );
    if (!pushed) throw badRequestUri('unknown: push the authorization request again (POST /ob/par)');
    if (!safeEqual(pushed.clientId, request.clientId)) throw badRequestUri('was pushed by another client');
    if (pushed.usedAt) throw badRequestUri('already used: each request_uri opens the consent page once');
    if (pushed.expiresAt.getTime() <= now.getTime())
      throw badRequestUri(`expired: it lives ${PUSHED_REQUEST_TTL_SECONDS} s; push the request again`);
    return root.fork().transactional(async (tx) => {
      const spent = await tx.nativeUpdate(
        PushedRequestEntity,
        { requestUri: pushed.requestUri, usedAt: null },
        { usedAt: now },
      );
      if (spent === 0) throw badRequestUri('already used: each request_uri opens the consent page once');
      const applied = await tx.nativeUpdate(
        ConsentEntity,
        { id: pushed.consentId, status: 'AWAITING_AUTHORISATION', expiresAt: { $gt: now } },
        {
          redirectUri: pushed.redirectUri,
          state: pushed.state,
          codeChallenge: pushed.codeChallenge,
          dpopJkt: pushed.dpopJkt,
          pushedAt: now,
          updatedAt: now,
        },
      );
      if (applied === 0) {
        const consent = await loadConsent(tx, pushed.consentId);
        if (consent) assertAwaiting(consent, now);
        throw new GatewayError('CONSENT_NOT_FOUND', `no consent ${pushed.consentId}`);
      }
      return pushed.consentId;
    });
  }
}

/** A consent whose authorization may still be asked for: AWAITING_AUTHORISATION and unexpired. */
function assertAwaiting(consent: ConsentEntity, now: Date): void {
  const status = effectiveConsentStatus(consent, now);
  if (status === 'EXPIRED')
    throw new GatewayError('CONSENT_EXPIRED', `consent ${consent.id} has expired; start a new consent`);
  if (status !== 'AWAITING_AUTHORISATION')
    throw new GatewayError('CONSENT_ALREADY_DECIDED', `consent ${consent.id} is ${status}`);
}
