import { LRUCache } from 'lru-cache';
import { GatewayError } from './errors';
import { hmacSha256Hex, safeEqual } from './secrets';

/** Header in which the router forwards the authenticated caller to subgraphs. */
export const PRINCIPAL_HEADER = 'x-gateway-principal';
/** Header carrying the request id across every service a request crosses. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** `service`: one platform service calling another through the router (signed with the platform secret). */
export type PrincipalKind =
  'anonymous' | 'admin' | 'merchant' | 'bank' | 'tpp' | 'ob_token' | 'session' | 'bank_core' | 'service';

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
  /** admin: the admin key's name (`ADMIN_KEY` for the first), carried into logs and the audit log. */
  name?: string;
  /** Client IP for per-IP limits and audit. */
  ip?: string;
}

const MAX_AGE_MS = 5 * 60_000;

/**
 * Every request crosses at least one hop (router to subgraph, a service call), and the same
 * callers come again and again: a signature made for a principal is reused for half its life, and
 * a header once verified is known until it goes stale, instead of an HMAC (and a constant-time
 * comparison) on each side of every hop. Bounded (lru-cache).
 */
const signed = new LRUCache<string, { header: string; iat: number }>({ max: 1000 });
const verified = new LRUCache<string, { principal: Principal; iat: number }>({ max: 1000 });

/** Signs a principal as `base64url(json).hex-hmac` with the platform secret. */
export function signPrincipal(principal: Principal, secret: string, now = Date.now()): string {
  const key = `${secret}\n${JSON.stringify(principal)}`;
  const known = signed.get(key);
  if (known && now - known.iat >= 0 && now - known.iat < MAX_AGE_MS / 2) return known.header;
  const payload = Buffer.from(JSON.stringify({ ...principal, iat: now })).toString('base64url');
  const header = `${payload}.${hmacSha256Hex(secret, payload)}`;
  signed.set(key, { header, iat: now });
  return header;
}

/**
 * Verifies a forwarded principal; an absent, bad or stale one is refused (401 UNAUTHORIZED). The
 * router signs every hop, an anonymous caller's included, so a request without one did not come
 * through it: never an anonymous caller, which would skip the router's limits.
 */
export function verifyPrincipal(header: string | undefined, secret: string, now = Date.now()): Principal {
  if (!header) throw new GatewayError('UNAUTHORIZED', 'no signed principal: services are reached through the router');
  const key = `${secret}\n${header}`;
  let known = verified.get(key);
  if (!known) {
    const [payload, signature] = header.split('.');
    if (!payload || !signature || !safeEqual(signature, hmacSha256Hex(secret, payload))) {
      throw new GatewayError('UNAUTHORIZED', 'forwarded principal has a bad signature');
    }
    const { iat, ...principal } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Principal & {
      iat: unknown;
    };
    if (typeof iat !== 'number') throw new GatewayError('UNAUTHORIZED', 'forwarded principal is stale');
    known = { principal, iat };
    verified.set(key, known);
  }
  if (Math.abs(now - known.iat) > MAX_AGE_MS) throw new GatewayError('UNAUTHORIZED', 'forwarded principal is stale');
  return { ...known.principal };
}
