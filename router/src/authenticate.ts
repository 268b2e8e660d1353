import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ADMIN_KEY_PREFIX,
  DASHBOARD_SESSION_PREFIX,
  GatewayError,
  ID_PREFIX,
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  ROUTER_AUDIENCE,
  safeEqual,
  verifyPrincipalOnce,
  type Principal,
} from '@gateway/kernel';
import { vault, type CredentialKind, type DpopNonces, type VerifyResult } from '@gateway/vault';
import { checkTokenBinding, type TokenScheme } from './dpop-binding';
import { isOperatorSession, operatorSessionPrincipal } from './operator-session';
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
  name: (typeof CREDENTIALS)[number] | typeof PRINCIPAL_HEADER | typeof REQUEST_ID_HEADER | 'x-consent-id',
): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * A platform service's own call, or why it is refused: only the `service` kind, signed by the
 * service's client for the router (ROUTER_AUDIENCE) and for the request id it came with, within its
 * life, and only once (kernel's verifyPrincipalOnce). A principal the router signed for a subgraph,
 * one of another request, or one sent again is refused: whoever saw one on its way (any hop's, in
 * any layout) cannot present it here. Nothing else may name its own principal: rest-compat drops
 * the header from its clients' requests, and every other caller gets 401.
 */
function servicePrincipal(
  forwarded: string,
  headers: CredentialHeaders,
  ip: string,
  platformSecret: string,
): Principal | GatewayError {
  let principal: Principal;
  try {
    principal = verifyPrincipalOnce(forwarded, platformSecret, {
      audience: ROUTER_AUDIENCE,
      requestId: header(headers, REQUEST_ID_HEADER) ?? '',
    });
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  if (principal.kind !== 'service')
    return new GatewayError('UNAUTHORIZED', 'only platform services may sign their own principal');
  return { kind: 'service', id: principal.id, ip };
}

/**
 * The principal of a request that needs no vault lookup and is never refused: a platform
 * service's valid signature (spent by this check: servicePrincipal), or no credential at all
 * (anonymous). Undefined: authenticate decides, and refuses a signed principal left here.
 * Synchronous (issue 32): public reads and service calls are most of the router's requests, and
 * each async step costs a request promises, which cost more with the async hooks MikroORM's
 * AsyncLocalStorage turns on. authenticate answers these cases with this function's answer.
 */
export function principalWithoutLookup(
  headers: CredentialHeaders,
  ip: string,
  platformSecret: string,
): Principal | undefined {
  const known = knownWithoutLookup(headers, ip, platformSecret);
  return known instanceof GatewayError ? undefined : known;
}

/** principalWithoutLookup, with the refusal of a signed principal the router does not accept (a signature is checked, and spent, once). */
function knownWithoutLookup(
  headers: CredentialHeaders,
  ip: string,
  platformSecret: string,
): Principal | GatewayError | undefined {
  const forwarded = header(headers, PRINCIPAL_HEADER);
  if (forwarded !== undefined) return servicePrincipal(forwarded, headers, ip, platformSecret);
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
  nonces: DpopNonces,
): Principal | Promise<Principal> {
  const known = knownWithoutLookup(headers, ip, platformSecret);
  if (known instanceof GatewayError) return Promise.reject(known);
  return known ?? lookedUp(em, headers, adminKey, ip, nonces);
}

/** authenticate for a credential: looked up in the vault, or refused. */
async function lookedUp(
  em: VaultEm,
  headers: CredentialHeaders,
  adminKey: string,
  ip: string,
  nonces: DpopNonces,
): Promise<Principal> {
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
  if (authorization !== undefined) return bearerPrincipal(em, authorization, headers, ip, adminKey, nonces);

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

/**
 * `Authorization: Bearer <key or token>`, or `DPoP <token>` for an Open Banking token bound to a
 * key (issue 49): the scheme is held to the token's binding (checkTokenBinding) once it verified.
 */
async function bearerPrincipal(
  em: VaultEm,
  authorization: string,
  headers: CredentialHeaders,
  ip: string,
  adminKey: string,
  nonces: DpopNonces,
): Promise<Principal> {
  const match = /^(Bearer|DPoP) ([A-Za-z0-9_]+)$/.exec(authorization.trim());
  if (!match) throw new GatewayError('INVALID_API_KEY', 'Authorization must be "Bearer <key>" (or "DPoP <token>")');
  const scheme = match[1] as TokenScheme;
  const token = match[2]!;
  const consentId = header(headers, 'x-consent-id');
  // Only an Open Banking token is ever DPoP-bound: any other credential sent as DPoP is refused as malformed.
  if (scheme === 'DPoP' && !token.startsWith('at_') && !token.startsWith(CLIENT_TOKEN_PREFIX))
    throw new GatewayError('INVALID_API_KEY', 'only Open Banking access tokens are sent as "DPoP <token>"');

  if (token.startsWith('at_')) {
    if (!consentId)
      throw new GatewayError('UNAUTHORIZED', 'Open Banking calls need both Authorization and X-Consent-Id');
    const result = await vault.verify(em(), 'ob_access_token', token);
    if (!result.ok) {
      if (result.reason === 'expired') throw new GatewayError('TOKEN_EXPIRED');
      if (result.reason === 'revoked')
        throw new GatewayError(
          'TOKEN_REVOKED',
          'access token revoked: its consent was revoked, a refresh replaced it, or it was revoked at POST /ob/revoke',
        );
      if (result.reason === 'suspended') throw suspendedRefusal('ob_access_token');
      throw new GatewayError('UNAUTHORIZED', 'access token is not valid');
    }
    // A valid token speaking for another consent (contract "Data and payment calls"): the caller
    // is authenticated, just not for the consent it names, hence 403 rather than 401.
    if (!safeEqual(result.credential.ownerId, consentId))
      throw new GatewayError('FORBIDDEN', 'X-Consent-Id is not the consent this access token was issued for');
    await checkTokenBinding(em, result.credential, token, scheme, headers, nonces);
    return {
      kind: 'ob_token',
      id: consentId,
      consentId,
      scopes: result.credential.scopes,
      ip,
      ...(result.credential.clientId ? { clientId: result.credential.clientId } : {}),
    };
  }

  // A fapi2 TPP's own access token (client_credentials, issue 49): the TPP itself, as tpk_ is for a
  // spec TPP, with the scopes it was granted (accounts, payments) so open-banking can tell the two apart.
  if (token.startsWith(CLIENT_TOKEN_PREFIX)) {
    const result = await vault.verify(em(), 'ob_client_token', token);
    if (!result.ok) {
      if (result.reason === 'expired') throw new GatewayError('TOKEN_EXPIRED');
      if (result.reason === 'suspended') throw suspendedRefusal('ob_client_token');
      throw new GatewayError('UNAUTHORIZED', 'access token is not valid');
    }
    await checkTokenBinding(em, result.credential, token, scheme, headers, nonces);
    return { kind: 'tpp', id: result.credential.ownerId, scopes: [...result.credential.scopes], ip };
  }

  // RFC 7592's registration access token: manages its TPP's registration (GET/PUT/DELETE
  // /ob/register/{client_id}) and nothing else, hence a principal kind of its own.
  if (token.startsWith(REGISTRATION_TOKEN_PREFIX)) {
    const { credential } = await verified(
      em,
      'ob_registration_token',
      token,
      () => new GatewayError('INVALID_API_KEY', 'registration access token is not valid'),
    );
    return { kind: 'tpp_registration', id: credential.ownerId, ip };
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

  // The operator console's session (issue 50): an admin principal with its key's name.
  if (isOperatorSession(token)) return operatorSessionPrincipal(em(), token, ip);

  const merchant = await vault.verify(em(), 'merchant_key', token);
  if (merchant.ok) return { kind: 'merchant', id: merchant.credential.ownerId, scopes: merchant.credential.scopes, ip };
  if (merchant.reason === 'suspended') throw suspendedRefusal('merchant_key');
  // An admin key sent as a Bearer token, a first-hour slip: the refusal names the header it
  // belongs in. Asked only once the merchant lookup failed (no cost on the merchants' path).
  if (await isAdminKey(em, token, adminKey))
    throw new GatewayError(
      'INVALID_API_KEY',
      'this is an admin key: send it as X-Service-Admin-Key, not as Authorization: Bearer',
    );
  throw new GatewayError('INVALID_API_KEY');
}

const CLIENT_TOKEN_PREFIX = `${ID_PREFIX.clientToken}_`;
const REGISTRATION_TOKEN_PREFIX = `${ID_PREFIX.registrationToken}_`;

/** Prefixes of admin keys: today's (adm_) and named keys made before issue 46 (adk_sec_). */
const ADMIN_KEY_PREFIXES = [ADMIN_KEY_PREFIX, 'adk_sec_'];

/**
 * Whether a value is a working admin key: the configured one, or a live named key in the vault
 * (looked up only for a value with an admin key's prefix). Anything else, an admin key's lookalike
 * included, is not one, so the hint tells a caller nothing it did not hold already.
 */
async function isAdminKey(em: VaultEm, token: string, adminKey: string): Promise<boolean> {
  if (safeEqual(token, adminKey)) return true;
  if (!ADMIN_KEY_PREFIXES.some((prefix) => token.startsWith(prefix))) return false;
  return (await vault.verify(em(), 'admin_key', token)).ok;
}
