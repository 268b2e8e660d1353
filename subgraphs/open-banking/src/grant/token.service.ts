import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, parseInput, safeEqual } from '@gateway/kernel';
import { vault, type Credential, type VerifyResult } from '@gateway/vault';
import type { ConsentEntity } from '../consent/consent.entity';
import { loadConsent } from '../consent/consent.moves';
import { effectiveConsentStatus } from '../consent/consent.type';
import { s256Matches } from './pkce';
import { familyOf, issueTokenPair, type IssuedTokens } from './token.issue';
import { exchangeCodeRules, refreshRules, type ExchangeCodeRequest } from './token.rules';

/** What callerOf reads of a token request: its client authentication and DPoP proof. */
export type ClientRequest = Pick<
  ExchangeCodeRequest,
  'clientId' | 'clientAssertionType' | 'clientAssertion' | 'dpopProof'
>;
import { audienceOf, ClientAuthenticator } from '../client-auth/client-authentication';
import { DEFAULT_PUBLIC_BASE_URL } from '../settings';
import { TppEntity } from '../tpp/tpp.entity';
import { TokenEndpointProofs } from '../client-auth/token-endpoint-proofs';
import { randomBytes } from 'node:crypto';
import { DpopNonces } from '@gateway/vault';

/**
 * What a token request came to. A refusal is returned from the transaction, not thrown in it:
 * the revocation a replay causes must commit although the request itself fails.
 */
type Outcome = { tokens: IssuedTokens } | { refusal: GatewayError };

const refuse = (refusal: GatewayError): Outcome => ({ refusal });
const invalidGrant = (detail: string): Outcome => refuse(new GatewayError('INVALID_GRANT', detail));
/** An otherwise valid code or refresh token of a TPP the operator suspended: kept, and good again on resume. */
const tppSuspended = () =>
  new GatewayError('TPP_SUSPENDED', 'the TPP this grant was issued to is suspended by the operator');

/** Why a consent gives no tokens now (spec codes), or null while it is AUTHORISED and unexpired. */
function consentRefusal(consent: ConsentEntity, now: Date): Outcome | null {
  const status = effectiveConsentStatus(consent, now);
  if (status === 'AUTHORISED') return null;
  if (status === 'REVOKED')
    return refuse(new GatewayError('CONSENT_REVOKED', `consent ${consent.id} is revoked; start a new consent`));
  if (status === 'EXPIRED')
    return refuse(new GatewayError('CONSENT_EXPIRED', `consent ${consent.id} has expired; start a new consent`));
  return invalidGrant(`consent ${consent.id} is ${status}`);
}

/**
 * The consent a code or refresh token was issued for, checked against the request: the
 * consent_id sent (RFC 6749 4.1.3: a code of consent A presented with consent_id B is
 * refused) and, when the client names itself (client_id, as public OAuth clients do), its TPP.
 */
async function boundConsent(
  tx: EntityManager,
  credential: Credential,
  consentId: string,
  clientId: string | null | undefined,
  what: string,
): Promise<{ consent: ConsentEntity } | { refusal: Outcome }> {
  if (!safeEqual(credential.ownerId, consentId))
    return { refusal: invalidGrant(`${what} was not issued for this consent_id`) };
  const consent = await loadConsent(tx, credential.ownerId);
  if (!consent) return { refusal: invalidGrant(`${what} was not issued for this consent_id`) };
  if (clientId != null && !safeEqual(consent.tppId, clientId))
    return { refusal: invalidGrant(`${what} was not issued to this client_id`) };
  return { consent };
}

/**
 * The token endpoint's two grants (spec "Token response", "Open Banking tokens"; contract "Open
 * Banking additions"; RFC 6749 4.1.3 and 6, RFC 7636, RFC 9700 4.14). Every read and write of one
 * request happens in one transaction; single use is a conditional update in the vault
 * (vault.consume), so of two requests with the same code or refresh token exactly one is served.
 *
 * Replays: a code or refresh token presented after it was spent revokes every token of its
 * grant (RFC 6749 4.1.2, RFC 9700 4.14.2): the legitimate client and an attacker cannot be told
 * apart, so neither keeps access. A losing concurrent request counts as a replay.
 *
 * Refreshing also revokes the grant's earlier access tokens: each grant has one live pair. RFC
 * 9700 4.14.2 requires rotation only for the refresh token; we go further because the spec
 * speaks of the pair moving on, and because an access token leaked before a refresh otherwise
 * stays usable for up to 15 minutes after the client itself has moved on. A client with calls
 * in flight sees TOKEN_REVOKED on them and retries with the new token.
 */
export class TokenService {
  constructor(
    readonly clients = new ClientAuthenticator(audienceOf(DEFAULT_PUBLIC_BASE_URL)),
    // Nonces under a key of this instance alone: the modules pass the platform's (modules.ts).
    readonly proofs = new TokenEndpointProofs(
      DEFAULT_PUBLIC_BASE_URL,
      new DpopNonces(randomBytes(32).toString('hex'), false),
    ),
  ) {}

  /**
   * The request's DPoP key (its proof is checked and spent first) and its authenticated client: a
   * fapi2 client's request without a proof is refused, as its tokens are always bound.
   */
  async callerOf(
    root: EntityManager,
    request: ClientRequest,
    now: Date,
  ): Promise<{ client: TppEntity | null; key: string | undefined }> {
    const key = await this.proofs.keyOf(root, request.dpopProof, '/ob/token', now);
    const client = await this.clients.authenticate(root, request, now);
    if (client && key === undefined) throw this.proofs.required(now);
    return { client, key };
  }

  /** grant_type=authorization_code: redeems a code for the first pair of its grant. */
  async exchangeCode(root: EntityManager, input: unknown, now = new Date()): Promise<IssuedTokens> {
    const request = parseInput(exchangeCodeRules, input);
    const { client, key } = await this.callerOf(root, request, now);
    const outcome = await root.fork().transactional(async (tx): Promise<Outcome> => {
      const found = await vault.verify(tx, 'ob_authorization_code', request.code, now);
      if (!found.ok && found.reason === 'unknown') return invalidGrant('code is not valid');
      const unauthenticated = await clientRefusal(tx, found.credential!, client, 'code');
      if (unauthenticated) return unauthenticated;
      if (!found.ok && found.reason === 'suspended') return refuse(tppSuspended());
      const code = found.credential!;
      if (!found.ok && found.reason === 'used') {
        await vault.revokeFamily(tx, familyOf(code), now);
        return invalidGrant('code has already been used; every token issued from it is revoked');
      }
      const bound = await boundConsent(tx, code, request.consentId, request.clientId, 'code');
      if ('refusal' in bound) return bound.refusal;
      const { consent } = bound;
      // RFC 6749 4.1.3: exactly the redirect_uri of the authorization request.
      if (!safeEqual(consent.redirectUri, request.redirectUri))
        return invalidGrant('redirect_uri does not match the consent request');
      const closed = consentRefusal(consent, now);
      if (closed) return closed;
      const unusable = codeRefusal(found);
      if (unusable) return unusable;
      // A wrong verifier does not spend the code: whoever stole it without the verifier cannot
      // burn the legitimate client's exchange, and guessing a 43+ character verifier is hopeless.
      if (!s256Matches(request.codeVerifier, consent.codeChallenge))
        return refuse(new GatewayError('PKCE_INVALID', 'code_verifier does not match the code_challenge'));
      // RFC 9449 10: a code pushed with dpop_jkt (or a proof at PAR) is redeemed only with that key.
      if (consent.dpopJkt && consent.dpopJkt !== key)
        return refuse(
          this.proofs.refusal(
            key === undefined
              ? 'this code is bound to a DPoP key (dpop_jkt of the authorization request): send a proof signed by it'
              : 'the proof is not signed by the key of the authorization request (dpop_jkt)',
            now,
          ),
        );
      if (!(await vault.consume(tx, code, now))) {
        // Spent (or expired, or revoked) between the read and the update: another request won.
        await vault.revokeFamily(tx, familyOf(code), now);
        return invalidGrant('code has already been used; every token issued from it is revoked');
      }
      // One grant per approval: an approval sent again may have left other codes of this consent
      // (authorisation.service approveAgain); the first one redeemed ends them.
      await vault.revokeAll(tx, 'ob_authorization_code', consent.id, now);
      return {
        tokens: issueTokenPair(
          tx,
          {
            consentId: consent.id,
            tppId: consent.tppId,
            family: familyOf(code),
            scopes: consent.scopes,
            ...(key ? { keyThumbprint: key } : {}),
          },
          now,
        ),
      };
    });
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.tokens;
  }

  /** grant_type=refresh_token: single-use rotation, the new pair in the same grant. */
  async refresh(root: EntityManager, input: unknown, now = new Date()): Promise<IssuedTokens> {
    const request = parseInput(refreshRules, input);
    const { client, key } = await this.callerOf(root, request, now);
    const outcome = await root.fork().transactional(async (tx): Promise<Outcome> => {
      const found = await vault.verify(tx, 'ob_refresh_token', request.refreshToken, now);
      if (!found.ok && found.reason === 'unknown') return invalidGrant('refresh_token is not valid');
      const unauthenticated = await clientRefusal(tx, found.credential!, client, 'refresh_token');
      if (unauthenticated) return unauthenticated;
      if (!found.ok && found.reason === 'suspended') return refuse(tppSuspended());
      const token = found.credential!;
      // RFC 9449 5: a bound refresh token is spent only with a proof of its key; without one nothing is spent or revoked,
      // not even by a replay of a rotated one.
      if (token.keyThumbprint && token.keyThumbprint !== key)
        return refuse(
          this.proofs.refusal(
            key === undefined
              ? 'this refresh token is DPoP-bound: send a proof signed by its key'
              : 'the proof is not signed by the key this refresh token is bound to',
            now,
          ),
        );
      if (!found.ok && found.reason === 'used') return reuse(tx, token, now);
      const bound = await boundConsent(tx, token, request.consentId, request.clientId, 'refresh_token');
      if ('refusal' in bound) return bound.refusal;
      const { consent } = bound;
      const closed = consentRefusal(consent, now);
      if (closed) return closed;
      // The consent is open (consentRefusal above), so this grant itself was revoked: by a replayed code or refresh token.
      if (!found.ok && found.reason === 'revoked') return refuse(grantRevoked());
      if (!found.ok) return invalidGrant('refresh_token has expired');
      if (!(await vault.consume(tx, token, now))) return reuse(tx, token, now);
      const family = familyOf(token);
      await vault.revokeFamily(tx, family, now, ['ob_access_token']);
      return {
        tokens: issueTokenPair(
          tx,
          {
            consentId: consent.id,
            tppId: consent.tppId,
            family,
            scopes: consent.scopes,
            ...(key ? { keyThumbprint: key } : {}),
          },
          now,
        ),
      };
    });
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.tokens;
  }
}

/**
 * Whether the client presenting a code or refresh token may: an authenticated fapi2 client only
 * its own (RFC 6749 4.1.3: the code was issued to the authenticated client); without client
 * authentication only a spec (public) TPP's, as the spec's flow is. A fapi2 TPP's grant presented
 * without its assertion is refused before anything else is looked at: whoever stole its code or
 * refresh token, but not its key, neither gets tokens nor spends or revokes anything.
 */
async function clientRefusal(
  tx: EntityManager,
  credential: Credential,
  client: TppEntity | null,
  what: string,
): Promise<Outcome | null> {
  if (client) return credential.clientId === client.id ? null : invalidGrant(`${what} was not issued to this client`);
  if (!credential.clientId) return null;
  const owner = await tx.findOne(
    TppEntity,
    { id: credential.clientId },
    { fields: ['securityProfile'], disableIdentityMap: true },
  );
  if (owner?.securityProfile !== 'fapi2') return null;
  return refuse(
    new GatewayError(
      'INVALID_CLIENT',
      `client authentication required: this ${what} belongs to a fapi2 client, which authenticates with private_key_jwt (client_assertion_type and client_assertion)`,
    ),
  );
}

/** A live code that still cannot be redeemed. */
function codeRefusal(found: VerifyResult): Outcome | null {
  if (found.ok) return null;
  if (found.reason === 'expired') return invalidGrant('code has expired');
  return invalidGrant('code has been revoked');
}

/**
 * Why a new pair needs a new consent: a redeemed consent gives no second code (authorisation
 * service's approveAgain), and the grant's own tokens are dead. The consent itself is not
 * touched (still AUTHORISED: revoking it is the TPP's or the customer's decision).
 */
const NEXT_STEP =
  'the consent stays AUTHORISED but this grant issues no more tokens: create a new consent (and delete this one)';

/**
 * An already rotated refresh token presented again: the whole grant (its access and refresh
 * tokens) is revoked (contract: 401 TOKEN_REVOKED; RFC 9700 4.14.2). Said as what happened: the
 * spec table's message for TOKEN_REVOKED, "consent deleted", is not so here.
 */
async function reuse(tx: EntityManager, token: Credential, now: Date): Promise<Outcome> {
  await vault.revokeFamily(tx, familyOf(token), now);
  return refuse(
    new GatewayError(
      'TOKEN_REVOKED',
      `refresh_token was already used (rotated); as RFC 9700 requires for a reused refresh token, every access and refresh token of this grant is now revoked; ${NEXT_STEP}`,
      'Refresh token reused: this grant is revoked',
    ),
  );
}

/** A refresh token of a grant revoked earlier (a replayed code or refresh token), its consent still open. */
function grantRevoked(): GatewayError {
  return new GatewayError(
    'TOKEN_REVOKED',
    `refresh_token was revoked with its grant, after a code or refresh token of the grant was used twice; ${NEXT_STEP}`,
    'Token revoked: its grant was revoked after a reuse',
  );
}
