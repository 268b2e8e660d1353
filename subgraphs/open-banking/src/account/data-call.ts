import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, type Principal } from '@gateway/kernel';
import { ConsentEntity } from '../consent/consent.entity';
import type { ConsentScope } from '../consent/consent.rules';
import { effectiveConsentStatus } from '../consent/consent.type';

/**
 * The subgraph's half of a data call's checks (contract "Data and payment calls"); the router
 * did the token's own (unknown, expired, revoked, X-Consent-Id). Open-banking owns consents, so
 * it checks the consent itself on every call, uncached: a consent that expired or was revoked a
 * moment ago gives no data, whatever token is presented.
 *
 * - not an access token (no credential, the TPP token tpk_, any other key): 401 UNAUTHORIZED,
 *   since only an access token is a credential for account data at all;
 * - consent revoked: 401 TOKEN_REVOKED; expired (status, or expires_at passed before the
 *   expiry job ran): 401 CONSENT_EXPIRED; never authorised: 401 UNAUTHORIZED;
 * - the scope missing from the token or the consent: 403 SCOPE_INSUFFICIENT.
 */
export async function dataCallConsent(
  em: EntityManager,
  principal: Principal,
  scope: ConsentScope,
  now = new Date(),
): Promise<ConsentEntity> {
  if (principal.kind !== 'ob_token' || !principal.consentId) {
    throw new GatewayError(
      'UNAUTHORIZED',
      'account data needs an Open Banking access token: Authorization: Bearer at_… with X-Consent-Id',
    );
  }
  const consent = await em.findOne(ConsentEntity, { id: principal.consentId }, { disableIdentityMap: true });
  if (!consent) throw new GatewayError('UNAUTHORIZED', 'the consent of this access token no longer exists');
  const status = effectiveConsentStatus(consent, now);
  if (status === 'REVOKED')
    throw new GatewayError('TOKEN_REVOKED', `consent ${consent.id} is revoked; its tokens no longer work`);
  if (status === 'EXPIRED')
    throw new GatewayError('CONSENT_EXPIRED', `consent ${consent.id} expired at ${consent.expiresAt.toISOString()}`);
  if (status !== 'AUTHORISED') throw new GatewayError('UNAUTHORIZED', `consent ${consent.id} is ${status}`);
  const granted = (principal.scopes ?? []).includes(scope) && consent.scopes.includes(scope);
  if (!granted)
    throw new GatewayError(
      'SCOPE_INSUFFICIENT',
      `this call needs the scope ${scope}; the consent grants ${consent.scopes.join(', ')}`,
    );
  return consent;
}
