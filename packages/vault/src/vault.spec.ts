import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { sha256Hex } from '@gateway/kernel';
import { Credential } from './credential.entity';
import { migrateVault } from './schema';
import { vault } from './vault';

describe('credential vault', () => {
  let db: Database;
  let orm: ServiceOrm;
  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, { schema: 'vault_test', entities: [Credential], migrations: [], foreignSchemas: ['auth'] });
  });
  afterAll(() => db.close());

  it('stores only the SHA-256 of the secret and verifies the raw value', async () => {
    const em = orm.em.fork();
    const { raw, credential } = vault.issue(em, { kind: 'merchant_key', ownerId: 'mer_1', prefix: 'mk_test_', scopes: ['test'] });
    await em.flush();
    expect(raw).toMatch(/^mk_test_[0-9A-Za-z]{32}$/);
    const row = await db.knex('auth.credentials').where({ id: credential.id }).first();
    expect(row.hash).toBe(sha256Hex(raw));
    expect(JSON.stringify(row)).not.toContain(raw);

    const result = await vault.verify(orm.em.fork(), 'merchant_key', raw);
    expect(result.ok && result.credential.ownerId).toBe('mer_1');
    expect((await vault.verify(orm.em.fork(), 'merchant_key', `${raw}x`)).ok).toBe(false);
    expect(await vault.verify(orm.em.fork(), 'bank_key', raw)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('rotation invalidates the old secret at once', async () => {
    const em = orm.em.fork();
    const first = vault.issue(em, { kind: 'bank_key', ownerId: 'bank1', prefix: 'sbk_bank1_' });
    await em.flush();
    const second = await vault.rotate(em, { kind: 'bank_key', ownerId: 'bank1', prefix: 'sbk_bank1_' });
    await em.flush();
    expect((await vault.verify(orm.em.fork(), 'bank_key', first.raw)).ok).toBe(false);
    expect(((await vault.verify(orm.em.fork(), 'bank_key', first.raw)) as { reason: string }).reason).toBe('revoked');
    expect((await vault.verify(orm.em.fork(), 'bank_key', second.raw)).ok).toBe(true);
  });

  it('refuses an expired credential and revokes a whole family', async () => {
    const em = orm.em.fork();
    const expired = vault.issue(em, { kind: 'ob_access_token', ownerId: 'con_1', prefix: 'at_', expiresAt: new Date(Date.now() - 1000) });
    const a = vault.issue(em, { kind: 'ob_access_token', ownerId: 'con_2', prefix: 'at_', family: 'fam1', expiresAt: new Date(Date.now() + 60_000) });
    const b = vault.issue(em, { kind: 'ob_refresh_token', ownerId: 'con_2', prefix: 'rt_', family: 'fam1' });
    await em.flush();
    expect(await vault.verify(orm.em.fork(), 'ob_access_token', expired.raw)).toMatchObject({ ok: false, reason: 'expired' });
    expect(await vault.revokeFamily(orm.em.fork(), 'fam1')).toBe(2);
    expect(await vault.verify(orm.em.fork(), 'ob_access_token', a.raw)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(await vault.verify(orm.em.fork(), 'ob_refresh_token', b.raw)).toMatchObject({ ok: false, reason: 'revoked' });
  });

  it('a rolled-back owner transaction leaves no credential behind', async () => {
    let raw = '';
    await expect(
      orm.em.fork().transactional(async (em) => {
        raw = vault.issue(em, { kind: 'tpp_key', ownerId: 'tpp_1', prefix: 'tpk_' }).raw;
        await em.flush();
        throw new Error('owner write failed');
      }),
    ).rejects.toThrow('owner write failed');
    expect((await vault.verify(orm.em.fork(), 'tpp_key', raw)).ok).toBe(false);
  });
});
