import type { EntityManager } from '@mikro-orm/postgresql';
import { DpopRefusal } from '@gateway/kernel';
import { recordDpopProof, verifyDpopProof, type DpopNonces } from '@gateway/vault';

/** The authorization server's endpoints that take a DPoP proof (RFC 9449 5, 10.1), under the issuer. */
export type ProofEndpoint = '/ob/token' | '/ob/par';

/**
 * DPoP proofs sent to the authorization server itself: the token endpoint binds the tokens it
 * issues to the proof's key (RFC 9449 5, 6), PAR binds the authorization code (10.1). The proof is
 * checked against POST and the endpoint's URL under the issuer (what the metadata tells clients),
 * the server nonces, and what every instance has seen (its jti is recorded before anything else
 * happens, so a refused request still spends its proof).
 */
export class TokenEndpointProofs {
  constructor(
    private readonly issuer: string,
    readonly nonces: DpopNonces,
  ) {}

  /** The thumbprint of the proof's key (cnf.jkt), or undefined when no proof was sent. */
  async keyOf(
    em: EntityManager,
    proof: string | null | undefined,
    endpoint: ProofEndpoint,
    now = new Date(),
  ): Promise<string | undefined> {
    if (proof === null || proof === undefined) return undefined;
    const verified = await verifyDpopProof(
      proof,
      { method: 'POST', url: `${this.issuer}${endpoint}`, nonces: this.nonces },
      now,
    );
    if (!(await recordDpopProof(em, verified, now)))
      throw this.refusal('this proof was used before (its jti): sign a new proof for every request', now);
    return verified.jkt;
  }

  /** invalid_dpop_proof with the nonce to use next. */
  refusal(detail: string, now = new Date()): DpopRefusal {
    return new DpopRefusal('invalid_dpop_proof', detail, this.nonces.current(now));
  }

  /** A fapi2 client's tokens are always sender-constrained (FAPI 2.0 5.3.2.2): its requests must carry a proof. */
  required(now = new Date()): DpopRefusal {
    return this.refusal(
      "a fapi2 client's tokens are DPoP-bound: send a DPoP proof (RFC 9449) signed by the key to bind them to",
      now,
    );
  }
}
