import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, type Principal } from '@gateway/kernel';
import { vault, type CredentialKind } from '@gateway/vault';
import type { ConsentEntity, RevokedBy } from './consent.entity';
import { loadConsent, moveConsent } from './consent.moves';
import { consentNotFound } from './consent.service';
import { FINAL_CONSENT_STATUSES } from './consent.transitions';
import { effectiveConsentStatus } from './consent.type';

/** Every credential issued for a consent (ownerId = consent id): codes not yet exchanged, access and refresh tokens. */
export const CONSENT_CREDENTIAL_KINDS: readonly CredentialKind[] = [
  'ob_authorization_code',
  'ob_access_token',
  'ob_refresh_token',
];

/** Who is revoking, as the caller's credential proves it. */
export type Revoker =
  | { by: 'tpp'; principal: Principal }
  | { by: 'bank'; bankHandle: string; revokedBy: Extract<RevokedBy, 'bank' | 'customer'> };

/** How many times a lost race (the expiry job, another revocation) is re-read before giving up. */
const ATTEMPTS = 3;

/**
 * The TPP revokes through its TPP token (a consent of its own) or through the consent's access
 * token (that consent only); a bank through its key (a consent at that bank). Anyone else's
 * consent is CONSENT_NOT_FOUND, like an unknown one, so ids of others cannot be probed.
 */
function mayRevoke(consent: ConsentEntity, revoker: Revoker): boolean {
  if (revoker.by === 'bank') return consent.bankHandle === revoker.bankHandle;
  const { principal } = revoker;
  if (principal.kind === 'tpp') return principal.id === consent.tppId;
  if (principal.kind === 'ob_token') return principal.consentId === consent.id;
  return false;
}

/**
 * Revokes a consent and every credential of it in ONE transaction (spec "Open Banking tokens":
 * instant): the status move with its consent.revoked event, and revokedAt on every code and
 * token, so the router's uncached vault lookup refuses them (TOKEN_REVOKED) from the next
 * request on, and nothing is half done if the transaction fails.
 *
 * AWAITING_AUTHORISATION and AUTHORISED move to REVOKED (the transition table). A consent already
 * final (REVOKED, REJECTED, EXPIRED, or past expires_at) gives no access any more: revoking it
 * again succeeds without a move or an event (idempotent, as UK Open Banking's DELETE), and its
 * credentials are revoked all the same. Returns the consent as it stands afterwards.
 */
export async function revokeConsent(
  root: EntityManager,
  id: string,
  revoker: Revoker,
  now = new Date(),
): Promise<ConsentEntity> {
  const revokedBy: RevokedBy = revoker.by === 'tpp' ? 'tpp' : revoker.revokedBy;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await root.fork().transactional(async (tx) => {
      const consent = await loadConsent(tx, id);
      if (!consent || !mayRevoke(consent, revoker)) throw consentNotFound(id);
      const open = !FINAL_CONSENT_STATUSES.has(effectiveConsentStatus(consent, now));
      // Lost a race: someone moved it between the read and the conditional update. Re-read.
      if (open && !(await moveConsent(tx, consent, 'revoked', now, { revokedBy }))) return null;
      for (const kind of CONSENT_CREDENTIAL_KINDS) await vault.revokeAll(tx, kind, consent.id, now);
      return consent;
    });
    if (outcome) return outcome;
    if (attempt >= ATTEMPTS)
      throw new GatewayError('SERVICE_UNAVAILABLE', `consent ${id} kept changing while being revoked; retry`);
  }
}
