import { createHmac, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { GatewayError } from './errors';
import { randomToken } from './ids';
import { hmacSha256Hex } from './secrets';
import { SpentNonces } from './spent-nonces';

/** Header in which the router forwards the authenticated caller to subgraphs. */
export const PRINCIPAL_HEADER = 'x-gateway-principal';
/** Header carrying the request id across every service a request crosses. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The family of headers only the platform's own parts send one another (PRINCIPAL_HEADER): an edge
 * that takes requests from outside (rest-compat) never passes one on, whatever a client sends.
 */
export const INTERNAL_HEADER_PREFIX = 'x-gateway-';

/** Whether a header (its name, lowercase as node gives it) is one only the platform's parts send each other. */
export const isInternalHeader = (name: string): boolean => name.toLowerCase().startsWith(INTERNAL_HEADER_PREFIX);

/**
 * `service`: one platform service calling another through the router (signed with the platform secret).
 * `tpp_registration`: the holder of a TPP's RFC 7592 registration access token, which manages that
 * TPP's registration and nothing else (a kind of its own, so no `tpp` check ever accepts it).
 */
export type PrincipalKind =
  | 'anonymous'
  | 'admin'
  | 'merchant'
  | 'bank'
  | 'tpp'
  | 'tpp_registration'
  | 'ob_token'
  | 'session'
  | 'bank_core'
  | 'service';

/**
 * Who is calling, as established by the router from the spec's credential headers.
 * Subgraphs authorize on it; they never see raw credentials.
 */
export interface Principal {
  kind: PrincipalKind;
  /** merchant id, bank handle, tpp id, consent id or session id, depending on kind. */
  id?: string;
  /** merchant mode (test or live), OB scopes, or a fapi2 TPP's client_credentials scopes (accounts, payments). */
  scopes?: string[];
  consentId?: string;
  /** ob_token: the TPP (OAuth client) the access token was issued to, for per-TPP limits. */
  clientId?: string;
  /** admin: the admin key's name (`ADMIN_KEY` for the first), carried into logs and the audit log. */
  name?: string;
  /** Client IP for per-IP limits and audit. */
  ip?: string;
}

/** The audience of a platform service's own call: the router, which runs it as the `service` principal. */
export const ROUTER_AUDIENCE = 'router';

/**
 * How long a signed principal is accepted around the moment it was signed (either way: clocks of
 * two hosts differ). A principal is checked when it arrives, in process at once, over HTTP within a
 * balancer's queue; the router signs each subgraph fetch as it sends it (principalSigner), so a
 * long request still sends fresh ones. Short, so one seen on the way is worth little.
 */
export const PRINCIPAL_LIFE_MS = 30_000;

/** What a principal is bound to besides who it names: the one service it is for, and the one request. */
export interface PrincipalClaims {
  /** ROUTER_AUDIENCE, or the name of the subgraph it is sent to (`banks`, `open-banking`, ...). */
  audience: string;
  /** The X-Request-Id it travels with. */
  requestId: string;
}

/** A verified principal with what its signature carried besides: when it was signed, and its nonce (verifyPrincipalOnce). */
export interface SignedPrincipal {
  principal: Principal;
  issuedAt: number;
  nonce: string;
}

interface Payload extends Principal {
  aud: string;
  rid: string;
  iat: number;
  jti: string;
}

/**
 * The HMAC's input: the payload behind a label, so that no other HMAC the platform makes with its
 * secret (OTP hashes, page tokens: `otp:…`, `consent-page:…`) is ever a principal's signature, and
 * the audience-free format of before (an HMAC of the bare payload) is refused outright.
 */
const signedText = (payload: string) => `principal.v2:${payload}`;

/**
 * Signs a principal for one audience and one request as `base64url(json).hex-hmac` with the
 * platform secret; the JSON carries the audience (`aud`), the request id (`rid`), the time
 * (`iat`) and a nonce (`jti`), so no two signatures are the same.
 */
export function signPrincipal(principal: Principal, secret: string, claims: PrincipalClaims, now = Date.now()): string {
  const payload: Payload = {
    ...principal,
    aud: claims.audience,
    rid: claims.requestId,
    iat: now,
    jti: randomToken(16),
  };
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${hmacSha256Hex(secret, signedText(encoded))}`;
}

/**
 * The principal of one request signed for each service it calls: each signature made once and sent
 * for half its life (a plan's fetches to one subgraph carry the same one), then made anew.
 */
export function principalSigner(principal: Principal, secret: string, requestId: string): (audience: string) => string {
  const made = new Map<string, { header: string; iat: number }>();
  return (audience) => {
    const now = Date.now();
    const known = made.get(audience);
    if (known && now - known.iat < PRINCIPAL_LIFE_MS / 2) return known.header;
    const header = signPrincipal(principal, secret, { audience, requestId }, now);
    made.set(audience, { header, iat: now });
    return header;
  };
}

/**
 * A header once verified is known until it goes stale: the router's fetches of one request to one
 * subgraph (a plan's several) carry the same header. Bounded (lru-cache); a hit counts only for the
 * secret it was verified with, and is checked against the claims and the clock like a new one.
 */
const verified = new LRUCache<string, { secret: string; payload: Payload }>({ max: 1000 });

const refused = (detail: string) => new GatewayError('UNAUTHORIZED', detail);

/**
 * Whether `signature` (hex, as sent) is the HMAC of `encoded`: compared in constant time on the
 * bytes. Its length says nothing secret (every signature has 64 digits), so a wrong one is refused
 * before any comparison; unlike safeEqual, no hashing of both sides (two SHA-256 per hop).
 */
function signs(signature: string, encoded: string, secret: string): boolean {
  if (signature.length !== 64) return false;
  const expected = createHmac('sha256', secret).update(signedText(encoded)).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function payloadOf(header: string, secret: string): Payload {
  const known = verified.get(header);
  if (known && known.secret === secret) return known.payload;
  const dot = header.indexOf('.');
  if (dot <= 0 || !signs(header.slice(dot + 1), header.slice(0, dot), secret))
    throw refused('forwarded principal has a bad signature');
  const payload = JSON.parse(Buffer.from(header.slice(0, dot), 'base64url').toString('utf8')) as Payload;
  if (
    typeof payload.aud !== 'string' ||
    typeof payload.rid !== 'string' ||
    typeof payload.iat !== 'number' ||
    typeof payload.jti !== 'string'
  )
    throw refused('forwarded principal names no audience or request');
  verified.set(header, { secret, payload });
  return payload;
}

/**
 * Verifies a forwarded principal for the service verifying it (`claims.audience`) and the request
 * it came with (`claims.requestId`); an absent, bad or stale one, one signed for another service or
 * another request, is refused (401 UNAUTHORIZED). The router signs every hop, an anonymous
 * caller's included, so a request without one did not come through it: never an anonymous
 * caller, which would skip the router's limits.
 */
export function openPrincipal(
  header: string | undefined,
  secret: string,
  claims: PrincipalClaims,
  now = Date.now(),
): SignedPrincipal {
  if (!header) throw refused('no signed principal: services are reached through the router');
  const { aud, rid, iat, jti, ...principal } = payloadOf(header, secret);
  if (aud !== claims.audience) throw refused('forwarded principal was signed for another service');
  if (rid !== claims.requestId) throw refused('forwarded principal was signed for another request');
  if (Math.abs(now - iat) > PRINCIPAL_LIFE_MS) throw refused('forwarded principal is stale');
  return { principal, issuedAt: iat, nonce: jti };
}

/** openPrincipal's principal: what a subgraph authorizes on. */
export function verifyPrincipal(
  header: string | undefined,
  secret: string,
  claims: PrincipalClaims,
  now = Date.now(),
): Principal {
  return openPrincipal(header, secret, claims, now).principal;
}

/**
 * The nonces of the principals accepted once, each kept for as long as its principal could be
 * accepted (its life either way of its `iat`).
 */
const spent = new SpentNonces(2 * PRINCIPAL_LIFE_MS, 100_000);

/** How many nonces verifyPrincipalOnce remembers now (its memory must not grow with the calls made: issue 52). */
export const spentPrincipalNonces = (): number => spent.size;

/**
 * verifyPrincipal, and each signature accepted only once in this process: the router's check of a
 * platform service's own call (its service client signs every call anew), so a header seen on the
 * way (a log, a proxy, a capture of the split layout's loopback HTTP) cannot be sent again.
 */
export function verifyPrincipalOnce(
  header: string | undefined,
  secret: string,
  claims: PrincipalClaims,
  now = Date.now(),
): Principal {
  const { principal, nonce } = openPrincipal(header, secret, claims, now);
  if (!spent.spend(nonce, now)) throw refused('forwarded principal was already used');
  return principal;
}
