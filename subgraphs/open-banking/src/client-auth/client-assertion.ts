import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWTPayload } from 'jose';
import { GatewayError } from '@gateway/kernel';
import { SIGNING_ALGS, type PublicJwks, type SigningAlg } from '../signing-keys/jwks';

/** RFC 7523 2.2: the client_assertion_type of a JWT client assertion. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * An assertion may be valid for at most this long (API-CONTRACT "Open Banking at FAPI 2.0": exp
 * ≤ 60 s ahead): a short life keeps the set of seen jtis small and a stolen assertion worthless.
 */
export const ASSERTION_MAX_LIFETIME_SECONDS = 60;

/** Clock difference tolerated between the TPP and us, either way, on exp, nbf and iat. */
export const CLOCK_SKEW_SECONDS = 5;

/** What `aud` may name (RFC 7523bis, FAPI 2.0 5.3.2.1): the issuer; the token endpoint is accepted too. */
export interface AssertionAudience {
  issuer: string;
  tokenEndpoint: string;
}

/** A verified assertion: its jti, to be recorded until `expiresAt` so that it is never accepted twice. */
export interface VerifiedAssertion {
  jti: string;
  expiresAt: Date;
}

const refused = (detail: string): GatewayError => new GatewayError('INVALID_CLIENT', `client_assertion: ${detail}`);

const KEY_TYPE_OF: Record<SigningAlg, string> = { ES256: 'EC', PS256: 'RSA', EdDSA: 'OKP' };

const isSigningAlg = (alg: unknown): alg is SigningAlg => SIGNING_ALGS.includes(alg as SigningAlg);

/**
 * Verifies a private_key_jwt client assertion (RFC 7523 3, RFC 7521 5.2) of `clientId` with `jose`:
 * signed with `alg` from SIGNING_ALGS (no `none`, no HMAC) by the client's registered key its
 * header names (`kid`); iss = sub = client_id; aud the issuer or the token endpoint; exp present,
 * not past and at most 60 s ahead; nbf and iat (when sent) not in the future; a jti. Each refusal
 * is INVALID_CLIENT (RFC 6749 invalid_client) naming the rule. The jti is the caller's to record:
 * replay is checked against what every instance has seen (seen-jti.ts).
 */
export async function verifyClientAssertion(
  assertion: string,
  clientId: string,
  jwks: PublicJwks,
  audience: AssertionAudience,
  now = new Date(),
): Promise<VerifiedAssertion> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(assertion);
  } catch {
    throw refused('not a signed JWT (JWS compact serialization)');
  }
  if (assertion.split('.').length !== 3) throw refused('not a signed JWT (JWS compact serialization)');
  const { alg, kid } = header;
  if (!isSigningAlg(alg))
    throw refused(`alg ${JSON.stringify(alg ?? null)} is not accepted; sign with one of ${SIGNING_ALGS.join(', ')}`);
  if (typeof kid !== 'string' || kid.length === 0) throw refused('the header must name the signing key (kid)');
  const jwk = jwks.keys.find((key) => key.kid === kid);
  if (!jwk) throw refused(`no key with kid ${JSON.stringify(kid)} is registered for this client`);
  if (jwk.kty !== KEY_TYPE_OF[alg] || (jwk.alg !== undefined && jwk.alg !== alg))
    throw refused(`key ${JSON.stringify(kid)} does not sign with ${alg}`);

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, await importJWK({ ...jwk }, alg), {
      algorithms: [alg],
      issuer: clientId,
      subject: clientId,
      audience: [audience.issuer, audience.tokenEndpoint],
      requiredClaims: ['exp', 'jti'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: now,
    }));
  } catch (error) {
    throw joseRefusal(error, audience);
  }

  const nowSeconds = Math.floor(now.getTime() / 1000);
  const exp = payload.exp!;
  if (exp > nowSeconds + ASSERTION_MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS)
    throw refused(`exp must be at most ${ASSERTION_MAX_LIFETIME_SECONDS} seconds ahead`);
  if (payload.iat !== undefined && payload.iat > nowSeconds + CLOCK_SKEW_SECONDS) throw refused('iat is in the future');
  const { jti } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
    throw refused('jti must be a string of 1-256 characters');
  // Kept until the assertion can no longer pass the exp check, skew included.
  return { jti, expiresAt: new Date((exp + CLOCK_SKEW_SECONDS) * 1000) };
}

/** jose's refusal as the rule it broke. Anything that is not jose's is a defect, thrown as it is. */
function joseRefusal(error: unknown, audience: AssertionAudience): unknown {
  if (error instanceof errors.JWTExpired) return refused('exp is in the past');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return refused(`the ${error.claim} claim is required`);
    if (error.claim === 'iss' || error.claim === 'sub') return refused(`${error.claim} must be the client_id`);
    if (error.claim === 'aud')
      return refused(`aud must be the issuer (${audience.issuer}) or the token endpoint (${audience.tokenEndpoint})`);
    if (error.claim === 'nbf') return refused('nbf is in the future');
    return refused(`the ${error.claim} claim is not valid`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return refused('the signature does not verify');
  if (error instanceof errors.JOSEError) return refused('not a valid signed JWT');
  return error;
}
