import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * RFC 7636 4.1: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". A
 * verifier outside this is malformed (a VALIDATION_ERROR naming code_verifier), never compared.
 */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * RFC 7636 4.6: BASE64URL(SHA-256(ASCII(code_verifier))) must equal the stored challenge. Both
 * sides are hashed again to fixed-length digests and compared with timingSafeEqual, so neither
 * the time taken nor a length difference says how close a guess was.
 */
export function s256Matches(codeVerifier: string, codeChallenge: string): boolean {
  const computed = createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');
  const a = createHash('sha256').update(computed).digest();
  const b = createHash('sha256').update(codeChallenge).digest();
  return timingSafeEqual(a, b);
}
