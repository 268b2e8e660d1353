import { openServiceOrm, type Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { migrateAudit } from '@gateway/audit';
import { sha256Hex } from '@gateway/kernel';
import { VAULT_MIGRATIONS } from '@gateway/vault';

/**
 * The vault's created_by migration on a database from before issue 46: each named key gets its
 * maker from the audit log, and a backdoor already left behind by a revoked key is closed.
 */
describe('vault migration credential_created_by', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it("records each key's maker from the audit log and revokes the live keys under a revoked one, audited", async () => {
    const before = VAULT_MIGRATIONS.findIndex(
      (migration) => migration.name === 'Migration20261222000100_credential_created_by',
    );
    await openServiceOrm(db, { schema: 'auth', entities: [], migrations: VAULT_MIGRATIONS.slice(0, before) });
    await migrateAudit(db);
    const at = new Date('2026-12-20T10:00:00.000Z');
    const key = (ownerId: string, label: string, revokedAt: Date | null = null) => ({
      id: `cred_${ownerId}`,
      kind: 'admin_key',
      hash: sha256Hex(ownerId),
      owner_id: ownerId,
      scopes: JSON.stringify([]),
      created_at: at,
      revoked_at: revokedAt,
      label,
    });
    // The probe's state: op-eve (revoked) made op-eve-backdoor, which made op-eve-deeper; alice is the configured key's.
    await db
      .knex('auth.credentials')
      .insert([
        key('adk_eve', 'op-eve', at),
        key('adk_backdoor', 'op-eve-backdoor'),
        key('adk_deeper', 'op-eve-deeper'),
        key('adk_alice', 'alice'),
      ]);
    const made = (target: string, actorId: string | null, actorName: string) => ({
      id: `aud_${target}`,
      at,
      actor_kind: 'admin',
      actor_id: actorId,
      actor_name: actorName,
      action: 'admin_key.created',
      target,
      changes: JSON.stringify({ name: { to: target } }),
    });
    await db
      .knex('audit.entries')
      .insert([
        made('adk_eve', null, 'ADMIN_KEY'),
        made('adk_backdoor', 'adk_eve', 'op-eve'),
        made('adk_deeper', 'adk_backdoor', 'op-eve-backdoor'),
        made('adk_alice', null, 'ADMIN_KEY'),
      ]);

    await openServiceOrm(db, { schema: 'auth', entities: [], migrations: VAULT_MIGRATIONS });

    const rows = await db.knex('auth.credentials').where({ kind: 'admin_key' }).orderBy('owner_id');
    expect(rows.map((row) => [row.owner_id, row.created_by, row.revoked_at !== null])).toEqual([
      ['adk_alice', 'ADMIN_KEY', false],
      ['adk_backdoor', 'adk_eve', true],
      ['adk_deeper', 'adk_backdoor', true],
      ['adk_eve', 'ADMIN_KEY', true],
    ]);
    const revoked = await db.knex('audit.entries').where({ action: 'admin_key.revoked' }).orderBy('target');
    expect(revoked.map((entry) => [entry.target, entry.actor_kind, entry.changes.revoked_with])).toEqual([
      ['adk_backdoor', 'service', { to: 'adk_eve' }],
      ['adk_deeper', 'service', { to: 'adk_backdoor' }],
    ]);
    expect(revoked[0].changes.admin_key).toEqual({ from: '[secret]', to: null });
    expect(revoked[0].id).toMatch(/^aud_[0-9a-f]{24}$/);
  });
});
