import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors, jwtVerify, type JWTPayload } from 'jose';
import { DPOP_SIGNING_ALGS, DpopRefusal, type DpopErrorCode } from '@gateway/kernel';
import type { DpopNonces } from './dpop-nonce';

/** RFC 9449 4.3 (and the contract): a proof's iat may be this far from our clock, either way. */
export const DPOP_IAT_WINDOW_SECONDS = 10;

/** The request a proof must be for (RFC 9449 4.3 steps 8-12). */
export interface DpopRequest {
  /** The HTTP method the client used (htm). */
  method: string;
  /** The URL the client called (htu); its query and fragment are ignored, as the RFC says. */
  url: string;
  /** The access token presented with the proof, whose hash the proof must carry (ath); omitted at the token endpoint. */
  accessToken?: string;
  /** The server's nonces: checked when a proof carries one or when they are required; handed out with every refusal. */
  nonces?: DpopNonces;
}

/** A proof that passed every check but replay: its key's thumbprint (RFC 7638) and its jti, to record until `expiresAt`. */
export interface VerifiedDpopProof {
  jkt: string;
  jti: string;
  expiresAt: Date;
}

/**
 * Verifies the DPoP header of a request (RFC 9449 4.3) with `jose`: exactly one proof, a JWS of
 * typ dpop+jwt signed with ES256, PS256 or EdDSA by the public key in its own `jwk` header (never
 * a private key), for this method and URL, issued within ±10 s, with a jti, the access token's
 * hash when one is presented, and the server's nonce when required. Each refusal is
 * invalid_dpop_proof naming the rule, or use_dpop_nonce, carrying the nonce to use next. The jti is
 * the caller's to record (recordDpopProof): replay is decided by what every instance has seen.
 */
export async function verifyDpopProof(
  header: string | string[] | undefined,
  request: DpopRequest,
  now = new Date(),
): Promise<VerifiedDpopProof> {
  const refuse = (detail: string, code: DpopErrorCode = 'invalid_dpop_proof') =>
    new DpopRefusal(code, detail, request.nonces?.current(now));
  // Node joins a header sent twice with ", "; a JWS holds no comma.
  if (Array.isArray(header) || header?.includes(',')) throw refuse('exactly one DPoP header is allowed (RFC 9449 4.3)');
  if (!header) throw refuse('a DPoP proof is required: send it in the DPoP header');

  const proof = header.trim();
  let alg: unknown;
  let typ: unknown;
  let jwk: unknown;
  try {
    ({ alg, typ, jwk } = decodeProtectedHeader(proof));
  } catch {
    throw refuse('not a signed JWT (JWS compact serialization)');
  }
  if (proof.split('.').length !== 3) throw refuse('not a signed JWT (JWS compact serialization)');
  if (typ !== 'dpop+jwt') throw refuse('the header typ must be dpop+jwt');
  if (!DPOP_SIGNING_ALGS.includes(alg as (typeof DPOP_SIGNING_ALGS)[number]))
    throw refuse(
      `alg ${JSON.stringify(alg ?? null)} is not accepted; sign with one of ${DPOP_SIGNING_ALGS.join(', ')}`,
    );
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk))
    throw refuse('the header must carry the public key (jwk)');
  if ('d' in jwk || 'p' in jwk || 'k' in jwk) throw refuse('the jwk header must be a public key, never a private one');

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [alg as string],
      requiredClaims: ['iat', 'jti', 'htm', 'htu'],
      // iat is held to its own ±10 s below; exp and nbf, which a proof need not carry, to ours.
      clockTolerance: DPOP_IAT_WINDOW_SECONDS,
      currentDate: now,
    }));
  } catch (error) {
    throw joseRefusal(error, refuse);
  }

  const nowSeconds = now.getTime() / 1000;
  const iat = payload.iat!;
  if (Math.abs(nowSeconds - iat) > DPOP_IAT_WINDOW_SECONDS)
    throw refuse(
      `iat is ${Math.round(iat - nowSeconds)} s from the server's clock; a proof must be made within ±${DPOP_IAT_WINDOW_SECONDS} s of it`,
    );
  const { jti, htm, htu } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
    throw refuse('jti must be a string of 1-256 characters');
  if (htm !== request.method) throw refuse(`htm must be the request's method, ${request.method}`);
  if (typeof htu !== 'string' || !sameResource(htu, request.url))
    throw refuse(`htu must be the URL called, ${withoutQuery(request.url)}`);
  if (request.accessToken !== undefined && payload.ath !== accessTokenHash(request.accessToken))
    throw refuse('ath must be the base64url SHA-256 of the access token sent with it');
  if (request.nonces && (payload.nonce !== undefined || request.nonces.required)) {
    if (payload.nonce === undefined)
      throw refuse('this server requires a nonce: sign the proof again with the DPoP-Nonce given', 'use_dpop_nonce');
    if (!request.nonces.accepts(payload.nonce, now))
      throw refuse('the nonce is not current: sign the proof again with the DPoP-Nonce given', 'use_dpop_nonce');
  }

  const jkt = await calculateJwkThumbprint(jwk as Parameters<typeof calculateJwkThumbprint>[0], 'sha256');
  // Kept until the proof can no longer pass the iat check.
  return { jkt, jti, expiresAt: new Date((iat + DPOP_IAT_WINDOW_SECONDS + 1) * 1000) };
}

/** RFC 9449 4.2: ath, the base64url SHA-256 of the access token's ASCII. */
export const accessTokenHash = (accessToken: string): string =>
  createHash('sha256').update(accessToken, 'ascii').digest('base64url');

/** The URL without its query and fragment, normalized as RFC 3986 6.2.2-6.2.3 (case, default port, dot segments). */
function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

function sameResource(htu: string, url: string): boolean {
  try {
    return withoutQuery(htu) === withoutQuery(url);
  } catch {
    return false;
  }
}

/** jose's refusal as the rule it broke. Anything that is not jose's is a defect, thrown as it is. */
function joseRefusal(error: unknown, refuse: (detail: string) => DpopRefusal): unknown {
  if (error instanceof errors.JWTExpired) return refuse('exp is in the past');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return refuse(`the ${error.claim} claim is required`);
    if (error.claim === 'nbf') return refuse('nbf is in the future');
    if (error.claim === 'typ') return refuse('the header typ must be dpop+jwt');
    return refuse(`the ${error.claim} claim is not valid`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return refuse('the signature does not verify');
  if (error instanceof errors.JOSEError) return refuse(`not a valid proof: ${error.message}`);
  return error;
}
