import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The DPoP proofs seen (auth.seen_dpop_proofs), each kept until it could no longer pass the iat
 * check: the one writer of that table. Raw SQL, no entity: a row is written once, by an INSERT
 * whose primary key (key thumbprint, jti) decides between two instances racing with one proof.
 *
 * No purge job: the statement that records a proof first deletes its key's expired proofs, so the
 * table holds only live proofs of keys in use and an idle platform sends nothing for it.
 */
const RECORD_PROOF = `with "expired" as (
    delete from "auth"."seen_dpop_proofs" where "jkt" = ? and "expires_at" < ?
  )
  insert into "auth"."seen_dpop_proofs" ("jkt", "jti", "expires_at") values (?, ?, ?)
  on conflict do nothing returning "jti"`;

/**
 * Records a proof's jti for its key; false when the key used it before (a replay), on this
 * instance or any other. Its own statement, outside any caller's transaction: a request refused
 * later still spends its proof.
 */
export async function recordDpopProof(
  em: EntityManager,
  proof: { jkt: string; jti: string; expiresAt: Date },
  now = new Date(),
): Promise<boolean> {
  const rows: unknown[] = await em
    .fork()
    .execute(RECORD_PROOF, [proof.jkt, now, proof.jkt, proof.jti, proof.expiresAt]);
  return rows.length === 1;
}
