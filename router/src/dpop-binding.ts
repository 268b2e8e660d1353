import { DpopRefusal, GatewayError } from '@gateway/kernel';
import { recordDpopProof, verifyDpopProof, type Credential, type DpopNonces } from '@gateway/vault';
import type { EntityManager } from '@mikro-orm/postgresql';

/** authenticate's own types, restated: that module imports this one. */
type CredentialHeaders = Record<string, string | string[] | undefined>;
type VaultEm = () => EntityManager;

/**
 * The request line rest-compat forwards with a REST call ("GET https://host/ob/accounts"): the
 * method and public URL the client called, which its DPoP proof names (DESIGN "Open Banking
 * security profiles"). A call made to the router itself has none: its resource is /graphql.
 */
export const DPOP_REQUEST_HEADER = 'x-dpop-request';

/** The scheme an access token came with (RFC 6750 2.1, RFC 9449 7.1). */
export type TokenScheme = 'Bearer' | 'DPoP';

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The method and URL the proof must be for: as rest-compat forwarded them, or this router's /graphql. */
function requestTarget(headers: CredentialHeaders): { method: string; url: string } {
  const forwarded = /^([A-Z]+) (https?:\/\/\S+)$/.exec(single(headers[DPOP_REQUEST_HEADER]) ?? '');
  if (forwarded) return { method: forwarded[1]!, url: forwarded[2]! };
  const scheme = single(headers['x-forwarded-proto']) === 'https' ? 'https' : 'http';
  return { method: 'POST', url: `${scheme}://${single(headers.host) ?? 'localhost'}/graphql` };
}

/**
 * Holds an Open Banking token to the way it was issued (RFC 9449 7): a DPoP-bound token (a fapi2
 * TPP's: Credential.keyThumbprint) only with `Authorization: DPoP` and a proof for this request,
 * signed by the key it is bound to and never seen before on any instance; a bearer token only
 * with `Bearer`. Whoever copies a bound token without the private key cannot use it. Checked
 * after the token itself verified, so a refusal here never tells an unknown token from a bound one.
 */
export async function checkTokenBinding(
  em: VaultEm,
  credential: Credential,
  token: string,
  scheme: TokenScheme,
  headers: CredentialHeaders,
  nonces: DpopNonces,
): Promise<void> {
  const bound = credential.keyThumbprint;
  if (!bound) {
    if (scheme === 'DPoP')
      throw new GatewayError('UNAUTHORIZED', 'this access token is not DPoP-bound: send it as Authorization: Bearer');
    return;
  }
  if (scheme !== 'DPoP')
    throw new DpopRefusal(
      'invalid_dpop_proof',
      'this access token is DPoP-bound: send it as Authorization: DPoP <token> with a DPoP proof signed by its key',
      nonces.current(),
    );
  const proof = await verifyDpopProof(headers.dpop, { ...requestTarget(headers), accessToken: token, nonces });
  if (proof.jkt !== bound)
    throw new DpopRefusal(
      'invalid_dpop_proof',
      'the proof is not signed by the key this access token is bound to',
      nonces.current(),
    );
  if (!(await recordDpopProof(em(), proof)))
    throw new DpopRefusal(
      'invalid_dpop_proof',
      'this proof was used before (its jti): sign a new proof for every request',
      nonces.current(),
    );
}
