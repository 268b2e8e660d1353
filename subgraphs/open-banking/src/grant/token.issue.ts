import type { EntityManager } from '@mikro-orm/postgresql';
import { ID_PREFIX } from '@gateway/kernel';
import { vault, type Credential } from '@gateway/vault';

/** Spec "Open Banking tokens": access tokens live 15 minutes, refresh tokens 90 days. */
export const ACCESS_TOKEN_TTL_SECONDS = 900;
export const REFRESH_TOKEN_TTL_MS = 90 * 86_400_000;
export const ACCESS_TOKEN_PREFIX = `${ID_PREFIX.accessToken}_`;
export const REFRESH_TOKEN_PREFIX = `${ID_PREFIX.refreshToken}_`;

/** The spec's token response (POST /ob/token), camelCase. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** DPoP when the pair is bound to a proof's key (RFC 9449 5), else Bearer (spec TPPs). */
  tokenType: 'Bearer' | 'DPoP';
  expiresIn: number;
  /** Granted scopes separated by single spaces. */
  scope: string;
}

/** Who a pair is issued for: the consent (owner), its TPP (client), the grant (family), the consent's scopes. */
export interface GrantOf {
  consentId: string;
  tppId: string;
  family: string;
  scopes: readonly string[];
  /** The DPoP key both tokens are bound to (cnf.jkt), when the request carried a proof. */
  keyThumbprint?: string;
}

/**
 * Issues an access token and a refresh token in the caller's transaction: opaque random secrets
 * (32 base62 characters after the prefix, ~190 bits; spec: never a JWT), stored as SHA-256 only,
 * both in the grant's family so a replay or a revocation reaches every token grown from one
 * authorization code. The raw values exist only in the returned response.
 */
export function issueTokenPair(tx: EntityManager, grant: GrantOf, now: Date): IssuedTokens {
  const common = {
    ownerId: grant.consentId,
    clientId: grant.tppId,
    family: grant.family,
    scopes: [...grant.scopes],
    ...(grant.keyThumbprint ? { keyThumbprint: grant.keyThumbprint } : {}),
  };
  const access = vault.issue(tx, {
    ...common,
    kind: 'ob_access_token',
    prefix: ACCESS_TOKEN_PREFIX,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
  });
  const refresh = vault.issue(tx, {
    ...common,
    kind: 'ob_refresh_token',
    prefix: REFRESH_TOKEN_PREFIX,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
  });
  return {
    accessToken: access.raw,
    refreshToken: refresh.raw,
    tokenType: grant.keyThumbprint ? 'DPoP' : 'Bearer',
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
    scope: grant.scopes.join(' '),
  };
}

/** The grant a code or refresh token belongs to. Every one is issued with a family; one without is a defect, not a client error. */
export function familyOf(credential: Pick<Credential, 'id' | 'family'>): string {
  if (!credential.family) throw new Error(`credential ${credential.id} has no grant family`);
  return credential.family;
}
