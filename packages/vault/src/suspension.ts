import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The vault's list of suspended participants (auth.suspended_owners). Raw SQL, and this file its
 * one writer: the table is written in the owner's transaction (a bank's, a merchant's or a TPP's
 * status change) through the owner subgraph's ORM, which maps the vault's Credential but not this
 * table, and verification reads it inside the credential lookup (Credential.participantSuspended).
 */
const SUSPENDED_OWNERS = 'auth.suspended_owners';

/** Marks the owner suspended in the caller's transaction; true when it was not already. */
export async function markSuspended(em: EntityManager, ownerId: string, now: Date): Promise<boolean> {
  const rows: unknown[] = await em.execute(
    `insert into ${SUSPENDED_OWNERS} ("owner_id", "suspended_at") values (?, ?) on conflict ("owner_id") do nothing returning "owner_id"`,
    [ownerId, now],
  );
  return rows.length === 1;
}

/** Lifts the owner's suspension in the caller's transaction; true when it was suspended. */
export async function clearSuspended(em: EntityManager, ownerId: string): Promise<boolean> {
  const rows: unknown[] = await em.execute(
    `delete from ${SUSPENDED_OWNERS} where "owner_id" = ? returning "owner_id"`,
    [ownerId],
  );
  return rows.length === 1;
}
