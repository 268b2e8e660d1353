import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import type { ConsentEntity } from '../consent/consent.entity';

/** RFC 6749 4.1.2 recommends at most ten minutes; the contract fixes 60 seconds. */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

/** Raw authorization codes start with this (32 base62 characters follow: ~190 bits). */
export const AUTHORIZATION_CODE_PREFIX = 'oac_';

/**
 * Issues the single-use authorization code of an approved consent, in the approval's
 * transaction, stored as its SHA-256 in the vault like every credential. The code is bound to
 * its consent (owner), and through it to the consent's redirect_uri and code_challenge. Its
 * `family` (grt_…) names the grant: every access and refresh token issued from this code, and
 * from their rotations, carries the same family, so a replayed code or refresh token revokes
 * exactly what grew from it. Returns the raw code for the redirect; it exists nowhere else.
 */
export function issueAuthorizationCode(
  tx: EntityManager,
  consent: Pick<ConsentEntity, 'id' | 'scopes' | 'tppId'>,
  now: Date,
): string {
  const { raw } = vault.issue(tx, {
    kind: 'ob_authorization_code',
    ownerId: consent.id,
    prefix: AUTHORIZATION_CODE_PREFIX,
    scopes: [...consent.scopes],
    family: newId('grant'),
    // The TPP's: the token endpoint's rate limit is charged to it from the code alone.
    clientId: consent.tppId,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
  });
  return raw;
}
