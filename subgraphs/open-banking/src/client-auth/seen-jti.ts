import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The JWT ids seen (open_banking.seen_jtis), each kept until the JWT carrying it expires: the one
 * writer of that table. Raw SQL, no entity: a row is written once, by an INSERT whose unique key
 * decides between two instances racing with the same JWT, and never read back as an object.
 *
 * `kind` keeps the sets of different JWT uses apart (DPoP proofs have their own table, in the vault);
 * `issuer` is who chose the jti (the client id), as RFC 7523 3 scopes uniqueness to the issuer.
 */
const SEEN_JTIS = 'open_banking.seen_jtis';

export type JtiKind = 'client_assertion';

/**
 * Records a jti; false when it was seen before (a replay), on this instance or any other: the
 * primary key (kind, issuer, jti) admits one row, whoever inserts first. Its own statement, outside
 * the caller's transaction, so a request refused later still spends its assertion. The same
 * statement first forgets the issuer's expired jtis (an expired JWT is refused on its exp alone):
 * the table holds only live ones of clients in use, with no job polling it while nothing happens.
 */
export async function recordJti(
  em: EntityManager,
  kind: JtiKind,
  issuer: string,
  jti: string,
  expiresAt: Date,
  now = new Date(),
): Promise<boolean> {
  const rows: unknown[] = await em.fork().execute(
    `with "expired" as (delete from ${SEEN_JTIS} where "kind" = ? and "issuer" = ? and "expires_at" < ?)
      insert into ${SEEN_JTIS} ("kind", "issuer", "jti", "expires_at") values (?, ?, ?, ?) on conflict do nothing returning "jti"`,
    [kind, issuer, now, kind, issuer, jti, expiresAt],
  );
  return rows.length === 1;
}
