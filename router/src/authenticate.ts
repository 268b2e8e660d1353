import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DASHBOARD_SESSION_PREFIX,
  GatewayError,
  PRINCIPAL_HEADER,
  safeEqual,
  verifyPrincipal,
  type Principal,
} from '@gateway/kernel';
import { vault, type CredentialKind, type VerifyResult } from '@gateway/vault';
import { suspendedRefusal } from './suspended-refusal';

export type CredentialHeaders = Record<string, string | string[] | undefined>;

/** The vault's EntityManager, forked only when a credential is looked up (most hops carry none, or a signed principal). */
export type VaultEm = () => EntityManager;

/**
 * The credentials authenticate reads after a signed principal, in the order it reads them; the
 * only names `header` takes (with X-Consent-Id, read beside Authorization), so that a credential
 * read there is known to principalWithoutLookup too.
 */
const CREDENTIALS = [
  'x-service-admin-key',
  'x-service-bank-key',
  'authorization',
  'x-session-token',
  'x-service-internal-key',
] as const;

const header = (
  headers: CredentialHeaders,
  name: (typeof CREDENTIALS)[number] | typeof PRINCIPAL_HEADER | 'x-consent-id',
): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The principal of a request that needs no vault lookup and is never refused: a platform
 * service's valid signature, or no credential at all (anonymous). Undefined: authenticate
 * decides, and refuses what this leaves (a bad signature, a signed principal not a service's).
 * Synchronous (issue 32): public reads and service calls are most of the router's requests, and
 * each async step costs a request promises, which cost more with the async hooks MikroORM's
 * AsyncLocalStorage turns on. authenticate answers these cases with this function's answer.
 */
export function principalWithoutLookup(
  headers: CredentialHeaders,
  ip: string,
  platformSecret: string,
): Principal | undefined {
  const forwarded = header(headers, PRINCIPAL_HEADER);
  if (forwarded !== undefined) {
    let principal: Principal;
    try {
      principal = verifyPrincipal(forwarded, platformSecret);
    } catch {
      return undefined;
    }
    return principal.kind === 'service' ? { kind: 'service', id: principal.id, ip } : undefined;
  }
  for (const name of CREDENTIALS) if (headers[name] !== undefined) return undefined;
  return { kind: 'anonymous', ip };
}

/**
 * `refusal` is made only when the credential is refused: an error's stack costs more than the
 * check on every request. A suspended participant's credential gets its own 403 code.
 */
async function verified(
  em: VaultEm,
  kind: CredentialKind,
  raw: string,
  refusal: () => GatewayError,
): Promise<VerifyResult & { ok: true }> {
  const result = await vault.verify(em(), kind, raw);
  if (!result.ok) throw result.reason === 'suspended' ? suspendedRefusal(kind) : refusal();
  return result;
}

/**
 * Turns the spec's credential headers ("Authentication" table) into a principal, refusing a bad
 * credential with the spec's code (a rejected promise, never a throw). One credential per
 * request; the first present wins in the order below. Synchronous for the callers that need no
 * lookup (principalWithoutLookup), a promise for the rest.
 */
export function authenticate(
  em: VaultEm,
  headers: CredentialHeaders,
  adminKey: string,
  ip: string,
  platformSecret: string,
): Principal | Promise<Principal> {
  return principalWithoutLookup(headers, ip, platformSecret) ?? lookedUp(em, headers, adminKey, ip, platformSecret);
}

/** authenticate for a credential, or a signed principal principalWithoutLookup left: checked, or refused. */
async function lookedUp(
  em: VaultEm,
  headers: CredentialHeaders,
  adminKey: string,
  ip: string,
  platformSecret: string,
): Promise<Principal> {
  // Platform services (payments asking identity for routing) sign their own principal; only
  // the `service` kind is accepted this way, never a client-chosen identity.
  const forwarded = header(headers, PRINCIPAL_HEADER);
  if (forwarded !== undefined) {
    const principal = verifyPrincipal(forwarded, platformSecret);
    if (principal.kind !== 'service')
      throw new GatewayError('UNAUTHORIZED', 'only platform services may sign their own principal');
    return { kind: 'service', id: principal.id, ip };
  }

  const adminHeader = header(headers, 'x-service-admin-key');
  if (adminHeader !== undefined) {
    // The configured key is the first named admin key (API-CONTRACT "Operator controls").
    if (safeEqual(adminHeader, adminKey)) return { kind: 'admin', name: 'ADMIN_KEY', ip };
    // Any other: a named key from the vault (POST /admin/keys), its name carried to logs and the audit log.
    const { credential } = await verified(
      em,
      'admin_key',
      adminHeader,
      () => new GatewayError('UNAUTHORIZED', 'X-Service-Admin-Key is not valid'),
    );
    return { kind: 'admin', id: credential.ownerId, ...(credential.label ? { name: credential.label } : {}), ip };
  }

  const bankKey = header(headers, 'x-service-bank-key');
  if (bankKey !== undefined) {
    const { credential } = await verified(em, 'bank_key', bankKey, () => new GatewayError('INVALID_BANK_KEY'));
    return { kind: 'bank', id: credential.ownerId, scopes: credential.scopes, ip };
  }

  const authorization = header(headers, 'authorization');
  if (authorization !== undefined) return bearerPrincipal(em, authorization, header(headers, 'x-consent-id'), ip);

  const sessionToken = header(headers, 'x-session-token');
  if (sessionToken !== undefined) {
    const { credential } = await verified(
      em,
      'session_token',
      sessionToken,
      () => new GatewayError('UNAUTHORIZED', 'X-Session-Token is not valid'),
    );
    return { kind: 'session', id: credential.ownerId, ip };
  }

  const internalKey = header(headers, 'x-service-internal-key');
  if (internalKey !== undefined) {
    const { credential } = await verified(
      em,
      'internal_key',
      internalKey,
      () => new GatewayError('UNAUTHORIZED', 'X-Service-Internal-Key is not valid'),
    );
    // A sandbox core's key carries ['test']: its callbacks speak for the bank's test world only.
    return {
      kind: 'bank_core',
      id: credential.ownerId,
      ...(credential.scopes?.length ? { scopes: [...credential.scopes] } : {}),
      ip,
    };
  }

  return { kind: 'anonymous', ip };
}

async function bearerPrincipal(
  em: VaultEm,
  authorization: string,
  consentId: string | undefined,
  ip: string,
): Promise<Principal> {
  const match = /^Bearer ([A-Za-z0-9_]+)$/.exec(authorization.trim());
  if (!match) throw new GatewayError('INVALID_API_KEY', 'Authorization must be "Bearer <key>"');
  const token = match[1]!;

  if (token.startsWith('at_')) {
    if (!consentId)
      throw new GatewayError('UNAUTHORIZED', 'Open Banking calls need both Authorization and X-Consent-Id');
    const result = await vault.verify(em(), 'ob_access_token', token);
    if (!result.ok) {
      if (result.reason === 'expired') throw new GatewayError('TOKEN_EXPIRED');
      if (result.reason === 'revoked') throw new GatewayError('TOKEN_REVOKED');
      if (result.reason === 'suspended') throw suspendedRefusal('ob_access_token');
      throw new GatewayError('UNAUTHORIZED', 'access token is not valid');
    }
    // A valid token speaking for another consent (contract "Data and payment calls"): the caller
    // is authenticated, just not for the consent it names, hence 403 rather than 401.
    if (!safeEqual(result.credential.ownerId, consentId))
      throw new GatewayError('FORBIDDEN', 'X-Consent-Id is not the consent this access token was issued for');
    return {
      kind: 'ob_token',
      id: consentId,
      consentId,
      scopes: result.credential.scopes,
      ip,
      ...(result.credential.clientId ? { clientId: result.credential.clientId } : {}),
    };
  }

  // The TPP's own token is a different class: it manages consents and never reads account data
  // (open-banking refuses it there), so X-Consent-Id does not change what it is.
  if (token.startsWith('tpk_')) {
    const { credential } = await verified(
      em,
      'tpp_key',
      token,
      () => new GatewayError('INVALID_API_KEY', 'TPP access token is not valid'),
    );
    return { kind: 'tpp', id: credential.ownerId, ip };
  }

  // The merchant dashboard's session (rest-compat sends it from its HttpOnly cookie): the merchant
  // it was exchanged for, in the key's mode, marked so that it cannot mint another session.
  if (token.startsWith(DASHBOARD_SESSION_PREFIX)) {
    const { credential } = await verified(
      em,
      'dashboard_session',
      token,
      () => new GatewayError('UNAUTHORIZED', 'the dashboard session has ended; sign in again'),
    );
    return { kind: 'merchant', id: credential.ownerId, scopes: credential.scopes, ip };
  }

  const { credential } = await verified(em, 'merchant_key', token, () => new GatewayError('INVALID_API_KEY'));
  return { kind: 'merchant', id: credential.ownerId, scopes: credential.scopes, ip };
}
