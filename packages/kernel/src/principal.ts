import { GatewayError } from './errors';
import { hmacSha256Hex, safeEqual } from './secrets';

/** Header in which the router forwards the authenticated caller to subgraphs. */
export const PRINCIPAL_HEADER = 'x-gateway-principal';
/** Header carrying the request id across every service a request crosses. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** `service`: one platform service calling another through the router (signed with the platform secret). */
export type PrincipalKind = 'anonymous' | 'admin' | 'merchant' | 'bank' | 'tpp' | 'ob_token' | 'session' | 'bank_core' | 'service';

/**
 * Who is calling, as established by the router from the spec's credential headers.
 * Subgraphs authorize on it; they never see raw credentials.
 */
export interface Principal {
  kind: PrincipalKind;
  /** merchant id, bank handle, tpp id, consent id or session id, depending on kind. */
  id?: string;
  /** merchant mode (test or live) or OB scopes. */
  scopes?: string[];
  consentId?: string;
  /** ob_token: the TPP (OAuth client) the access token was issued to, for per-TPP limits. */
  clientId?: string;
  /** Client IP for per-IP limits and audit. */
  ip?: string;
}

const MAX_AGE_MS = 5 * 60_000;

/** Signs a principal as `base64url(json).hex-hmac` with the platform secret. */
export function signPrincipal(principal: Principal, secret: string, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ ...principal, iat: now })).toString('base64url');
  return `${payload}.${hmacSha256Hex(secret, payload)}`;
}

/** Verifies a forwarded principal; an absent header is an anonymous caller, a bad one is refused. */
export function verifyPrincipal(header: string | undefined, secret: string, now = Date.now()): Principal {
  if (!header) return { kind: 'anonymous' };
  const [payload, signature] = header.split('.');
  if (!payload || !signature || !safeEqual(signature, hmacSha256Hex(secret, payload))) {
    throw new GatewayError('UNAUTHORIZED', 'forwarded principal has a bad signature');
  }
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Principal & { iat: number };
  if (typeof decoded.iat !== 'number' || Math.abs(now - decoded.iat) > MAX_AGE_MS) {
    throw new GatewayError('UNAUTHORIZED', 'forwarded principal is stale');
  }
  const { iat: _iat, ...principal } = decoded;
  return principal;
}
