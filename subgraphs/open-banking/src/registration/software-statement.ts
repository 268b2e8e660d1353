import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { GatewayError, z } from '@gateway/kernel';
import { CLOCK_SKEW_SECONDS } from '../client-auth/client-assertion';
import { SIGNING_ALGS, type PublicJwks } from '../signing-keys/jwks';

/**
 * What a directory vouches for in a software statement (RFC 7591 2.3), as the claims UK Open
 * Banking's directory names them: the software's id, the name customers see on the consent page
 * and, when the directory lists them, the redirect URIs the software may register.
 */
export interface SoftwareStatement {
  softwareId: string;
  clientName: string;
  /** Undefined when the statement does not restrict them. */
  redirectUris?: string[];
}

/**
 * The claims read (others are ignored): software_id (1-64 characters) and software_client_name
 * (1-100) are required; software_redirect_uris (a list of absolute URLs) is optional. iss and
 * iat are required too; exp, when present, must not have passed.
 */
const claimsRule = z.object({
  software_id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  software_client_name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  software_redirect_uris: z.array(z.string().max(2048)).max(50).optional(),
});

const invalid = (detail: string): GatewayError =>
  new GatewayError('INVALID_SOFTWARE_STATEMENT', `software_statement: ${detail}`);

/**
 * Verifies a software statement with `jose` against the directory's keys (OB_DIRECTORY_JWKS):
 * a JWT signed with ES256, PS256 or EdDSA by one of them (UNAPPROVED_SOFTWARE_STATEMENT when no
 * directory key verifies it, RFC 7591 3.2.2), with the claims above (INVALID_SOFTWARE_STATEMENT).
 */
export async function verifySoftwareStatement(
  statement: string,
  directory: PublicJwks,
  now = new Date(),
): Promise<SoftwareStatement> {
  let alg: unknown;
  try {
    ({ alg } = decodeProtectedHeader(statement));
  } catch {
    throw invalid('not a signed JWT (JWS compact serialization)');
  }
  if (!SIGNING_ALGS.includes(alg as (typeof SIGNING_ALGS)[number]))
    throw invalid(`alg ${JSON.stringify(alg ?? null)} is not accepted; one of ${SIGNING_ALGS.join(', ')}`);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(statement, createLocalJWKSet(directory), {
      algorithms: [...SIGNING_ALGS],
      requiredClaims: ['iss', 'iat'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: now,
    }));
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed)
      throw new GatewayError(
        'UNAPPROVED_SOFTWARE_STATEMENT',
        'software_statement: not signed by a key of the directory this server trusts',
      );
    if (error instanceof errors.JWTExpired) throw invalid('it has expired (exp)');
    if (error instanceof errors.JWTClaimValidationFailed)
      throw invalid(
        error.reason === 'missing' ? `the ${error.claim} claim is required` : `${error.claim} is not valid`,
      );
    if (error instanceof errors.JOSEError) throw invalid('not a valid signed JWT');
    throw error;
  }
  if (payload.iat! > Math.floor(now.getTime() / 1000) + CLOCK_SKEW_SECONDS) throw invalid('iat is in the future');
  const claims = claimsRule.safeParse(payload);
  if (!claims.success) {
    const issue = claims.error.issues[0]!;
    throw invalid(`${issue.path.join('.')}: ${issue.message}`);
  }
  return {
    softwareId: claims.data.software_id,
    clientName: claims.data.software_client_name,
    ...(claims.data.software_redirect_uris ? { redirectUris: claims.data.software_redirect_uris } : {}),
  };
}
