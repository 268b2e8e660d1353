import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { sha256Hex } from '@gateway/kernel';
import { Credential } from './credential.entity';
import { migrateVault } from './schema';
import { markSuspended } from './suspension';
import { vault } from './vault';

describe('credential vault', () => {
  let db: Database;
  let orm: ServiceOrm;
  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: 'vault_test',
      entities: [Credential],
      migrations: [],
      foreignSchemas: ['auth'],
    });
  });
  afterAll(() => db.close());

  it('stores only the SHA-256 of the secret and verifies the raw value', async () => {
    const em = orm.em.fork();
    const { raw, credential } = vault.issue(em, {
      kind: 'merchant_key',
      ownerId: 'mer_1',
      prefix: 'mk_test_',
      scopes: ['test'],
    });
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
    const expired = vault.issue(em, {
      kind: 'ob_access_token',
      ownerId: 'con_1',
      prefix: 'at_',
      expiresAt: new Date(Date.now() - 1000),
    });
    const a = vault.issue(em, {
      kind: 'ob_access_token',
      ownerId: 'con_2',
      prefix: 'at_',
      family: 'fam1',
      expiresAt: new Date(Date.now() + 60_000),
    });
    const b = vault.issue(em, { kind: 'ob_refresh_token', ownerId: 'con_2', prefix: 'rt_', family: 'fam1' });
    await em.flush();
    expect(await vault.verify(orm.em.fork(), 'ob_access_token', expired.raw)).toMatchObject({
      ok: false,
      reason: 'expired',
    });
    expect(await vault.revokeFamily(orm.em.fork(), 'fam1')).toBe(2);
    expect(await vault.verify(orm.em.fork(), 'ob_access_token', a.raw)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(await vault.verify(orm.em.fork(), 'ob_refresh_token', b.raw)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
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

  it('spends a single-use credential once: of two racing consumes exactly one wins, and a spent one verifies as used', async () => {
    const em = orm.em.fork();
    const code = vault.issue(em, {
      kind: 'ob_authorization_code',
      ownerId: 'con_3',
      prefix: 'oac_',
      family: 'fam3',
      clientId: 'tpp_3',
      expiresAt: new Date(Date.now() + 60_000),
    });
    await em.flush();
    expect((await db.knex('auth.credentials').where({ id: code.credential.id }).first()).client_id).toBe('tpp_3');

    const results = await Promise.all(
      [1, 2].map(() => orm.em.fork().transactional((tx) => vault.consume(tx, code.credential))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await vault.verify(orm.em.fork(), 'ob_authorization_code', code.raw)).toMatchObject({
      ok: false,
      reason: 'used',
    });
    // Still recognised as spent after the family is revoked: a replay stays a replay.
    await vault.revokeFamily(orm.em.fork(), 'fam3');
    expect(await vault.verify(orm.em.fork(), 'ob_authorization_code', code.raw)).toMatchObject({
      ok: false,
      reason: 'used',
    });
    expect((await vault.lookup(orm.em.fork(), ['ob_authorization_code'], code.raw))?.clientId).toBe('tpp_3');
    expect(await vault.lookup(orm.em.fork(), ['ob_refresh_token'], code.raw)).toBeNull();
    expect(await vault.lookup(orm.em.fork(), ['ob_authorization_code'], `${code.raw}x`)).toBeNull();
  });

  it('never spends an expired or revoked credential', async () => {
    const em = orm.em.fork();
    const expired = vault.issue(em, {
      kind: 'ob_refresh_token',
      ownerId: 'con_4',
      prefix: 'rt_',
      expiresAt: new Date(Date.now() - 1),
    });
    const revoked = vault.issue(em, {
      kind: 'ob_refresh_token',
      ownerId: 'con_4',
      prefix: 'rt_',
      family: 'fam4',
      expiresAt: new Date(Date.now() + 60_000),
    });
    await em.flush();
    await vault.revokeFamily(orm.em.fork(), 'fam4');
    expect(await vault.consume(orm.em.fork(), expired.credential)).toBe(false);
    expect(await vault.consume(orm.em.fork(), revoked.credential)).toBe(false);
  });

  it('revokes only the given kinds of a family when asked', async () => {
    const em = orm.em.fork();
    const access = vault.issue(em, {
      kind: 'ob_access_token',
      ownerId: 'con_5',
      prefix: 'at_',
      family: 'fam5',
      expiresAt: new Date(Date.now() + 60_000),
    });
    const refresh = vault.issue(em, {
      kind: 'ob_refresh_token',
      ownerId: 'con_5',
      prefix: 'rt_',
      family: 'fam5',
      expiresAt: new Date(Date.now() + 60_000),
    });
    await em.flush();
    expect(await vault.revokeFamily(orm.em.fork(), 'fam5', new Date(), ['ob_access_token'])).toBe(1);
    expect(await vault.verify(orm.em.fork(), 'ob_access_token', access.raw)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    expect((await vault.verify(orm.em.fork(), 'ob_refresh_token', refresh.raw)).ok).toBe(true);
  });

  it('verifications asked together share one statement, and each sees what was committed before it was asked', async () => {
    const em = orm.em.fork();
    const keys = Array.from({ length: 5 }, (_, n) =>
      vault.issue(em, { kind: 'merchant_key', ownerId: `mer_batch_${n}`, prefix: 'mk_test_' }),
    );
    await em.flush();
    const sent: string[] = [];
    const knex = orm.em.getKnex();
    const count = (query: { sql: string }) => void (query.sql.includes('"credentials"') && sent.push(query.sql));
    knex.on('query', count);
    try {
      const results = await Promise.all([
        ...keys.map((key) => vault.verify(orm.em.fork(), 'merchant_key', key.raw)),
        vault.verify(orm.em.fork(), 'merchant_key', 'mk_test_unknown'),
      ]);
      expect(results.map((result) => result.ok)).toEqual([true, true, true, true, true, false]);
      expect(results.slice(0, 5).map((result) => result.ok && result.credential.ownerId)).toEqual(
        keys.map((_, n) => `mer_batch_${n}`),
      );
      expect(sent).toHaveLength(1);
    } finally {
      knex.off('query', count);
    }
    // No cache: a revocation committed before the next ask is seen by it.
    await vault.revokeAll(orm.em.fork(), 'merchant_key', 'mer_batch_0');
    expect(await vault.verify(orm.em.fork(), 'merchant_key', keys[0]!.raw)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
  });

  it("verification's hand mapping of a credential row is the ORM's, every property set (fails on a property added to the entity only)", async () => {
    const em = orm.em.fork();
    const { raw, credential } = vault.issue(em, {
      kind: 'ob_access_token',
      ownerId: 'con_map',
      prefix: 'at_',
      scopes: ['accounts', 'payments'],
      family: 'fam_map',
      clientId: 'tpp_map',
      expiresAt: new Date(Date.now() + 60_000),
      label: 'a label',
      createdBy: 'adk_map',
      keyThumbprint: 'thumb',
    });
    await em.flush();
    await db
      .knex('auth.credentials')
      .where({ id: credential.id })
      .update({ used_at: new Date(), revoked_at: new Date() });
    await em.transactional((tx) => markSuspended(tx, 'tpp_map', new Date()));

    const verified = await vault.verify(orm.em.fork(), 'ob_access_token', raw);
    const byOrm = await orm.em
      .fork()
      .findOneOrFail(
        Credential,
        { id: credential.id },
        { disableIdentityMap: true, populate: ['participantSuspended'] },
      );
    expect(verified.ok).toBe(false);
    const mapped = (verified as { credential: Credential }).credential;
    expect(mapped).toBeInstanceOf(Credential);
    expect({ ...mapped }).toEqual({ ...byOrm });
    const properties = Object.keys(orm.em.getMetadata().get(Credential.name).properties);
    expect(properties.filter((property) => mapped[property as keyof Credential] === undefined)).toEqual([]);
    expect(mapped.participantSuspended).toBe(true);
  });

  it('keeps a label beside the hash and hands it back on verification', async () => {
    const em = orm.em.fork();
    const { raw } = vault.issue(em, { kind: 'admin_key', ownerId: 'adk_label', prefix: 'adk_sec_', label: 'alice' });
    await em.flush();
    const result = await vault.verify(orm.em.fork(), 'admin_key', raw);
    expect(result.ok && [result.credential.ownerId, result.credential.label]).toEqual(['adk_label', 'alice']);
    const row = await db.knex('auth.credentials').where({ owner_id: 'adk_label' }).first();
    expect(row.label).toBe('alice');
  });

  it('one live admin key per name: a second is refused by the database, a revoked one frees the name', async () => {
    const em = orm.em.fork();
    const first = vault.issue(em, { kind: 'admin_key', ownerId: 'adk_one', prefix: 'adk_sec_', label: 'bob' });
    await em.flush();
    const clash = orm.em.fork();
    vault.issue(clash, { kind: 'admin_key', ownerId: 'adk_two', prefix: 'adk_sec_', label: 'bob' });
    await expect(clash.flush()).rejects.toThrow(/credentials_admin_key_label_live|unique/);
    await vault.revoke(orm.em.fork(), first.credential);
    const again = orm.em.fork();
    vault.issue(again, { kind: 'admin_key', ownerId: 'adk_three', prefix: 'adk_sec_', label: 'bob' });
    await again.flush();
    // Other kinds may share labels freely.
    const other = orm.em.fork();
    vault.issue(other, { kind: 'merchant_key', ownerId: 'mer_l1', prefix: 'mk_test_', label: 'bob' });
    vault.issue(other, { kind: 'merchant_key', ownerId: 'mer_l2', prefix: 'mk_test_', label: 'bob' });
    await other.flush();
  });

  it('expireAt gives live credentials an end instead of revoking them, sparing the ones kept and earlier ends', async () => {
    const em = orm.em.fork();
    const live = vault.issue(em, { kind: 'internal_key', ownerId: 'bank_grace', prefix: 'sik_' });
    const sandbox = vault.issue(em, {
      kind: 'internal_key',
      ownerId: 'bank_grace',
      prefix: 'sik_test_',
      scopes: ['test'],
    });
    const soon = new Date(Date.now() + 1_000);
    const ending = vault.issue(em, { kind: 'internal_key', ownerId: 'bank_grace', prefix: 'sik_', expiresAt: soon });
    await em.flush();
    const until = new Date(Date.now() + 60_000);
    const count = await vault.expireAt(orm.em.fork(), 'internal_key', 'bank_grace', until, (credential) =>
      credential.scopes.includes('test'),
    );
    expect(count).toBe(1);
    const row = async (id: string) => db.knex('auth.credentials').where({ id }).first();
    expect(new Date((await row(live.credential.id)).expires_at).getTime()).toBe(until.getTime());
    expect((await row(sandbox.credential.id)).expires_at).toBeNull();
    expect(new Date((await row(ending.credential.id)).expires_at).getTime()).toBe(soon.getTime());
    // Still accepted until then, refused after.
    expect((await vault.verify(orm.em.fork(), 'internal_key', live.raw)).ok).toBe(true);
    expect(await vault.verify(orm.em.fork(), 'internal_key', live.raw, new Date(until.getTime() + 1))).toMatchObject({
      ok: false,
      reason: 'expired',
    });
  });

  describe('suspension', () => {
    const issueAll = async () => {
      const em = orm.em.fork();
      const later = new Date(Date.now() + 60_000);
      const credentials = {
        merchantKey: vault.issue(em, { kind: 'merchant_key', ownerId: 'mer_s1', prefix: 'mk_test_' }),
        dashboard: vault.issue(em, { kind: 'dashboard_session', ownerId: 'mer_s1', prefix: 'mds_', expiresAt: later }),
        bankKey: vault.issue(em, { kind: 'bank_key', ownerId: 'bank-s1', prefix: 'sbk_bank-s1_' }),
        internalKey: vault.issue(em, { kind: 'internal_key', ownerId: 'bank-s1', prefix: 'sik_' }),
        tppKey: vault.issue(em, { kind: 'tpp_key', ownerId: 'tpp_s1', prefix: 'tpk_' }),
        accessToken: vault.issue(em, {
          kind: 'ob_access_token',
          ownerId: 'con_s1',
          clientId: 'tpp_s1',
          prefix: 'at_',
          expiresAt: later,
        }),
        refreshToken: vault.issue(em, {
          kind: 'ob_refresh_token',
          ownerId: 'con_s1',
          clientId: 'tpp_s1',
          prefix: 'rt_',
          expiresAt: later,
        }),
        code: vault.issue(em, {
          kind: 'ob_authorization_code',
          ownerId: 'con_s1',
          clientId: 'tpp_s1',
          prefix: 'oac_',
          expiresAt: later,
        }),
        otherMerchant: vault.issue(em, { kind: 'merchant_key', ownerId: 'mer_s2', prefix: 'mk_test_' }),
      };
      await em.flush();
      return credentials;
    };
    const reasons = async (credentials: Awaited<ReturnType<typeof issueAll>>) =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(credentials).map(async ([name, { raw, credential }]) => {
            const result = await vault.verify(orm.em.fork(), credential.kind, raw);
            return [name, result.ok ? 'ok' : result.reason];
          }),
        ),
      );

    it("refuses a suspended participant's credentials at once, its OB tokens by their client, never a bank's internal key, and restores them on resume", async () => {
      const credentials = await issueAll();
      const suspendAll = async (suspend: boolean) =>
        orm.em.fork().transactional(async (tx) => {
          const changed = [];
          for (const owner of ['mer_s1', 'bank-s1', 'tpp_s1'])
            changed.push(suspend ? await vault.suspend(tx, owner) : await vault.resume(tx, owner));
          return changed;
        });

      expect(await suspendAll(true)).toEqual([true, true, true]);
      expect(await reasons(credentials)).toEqual({
        merchantKey: 'suspended',
        dashboard: 'suspended',
        bankKey: 'suspended',
        internalKey: 'ok',
        tppKey: 'suspended',
        accessToken: 'suspended',
        refreshToken: 'suspended',
        code: 'suspended',
        otherMerchant: 'ok',
      });
      // Inside a transaction (the token endpoint's code and refresh checks) the same answer.
      expect(
        await orm.em
          .fork()
          .transactional(async (tx) => (await vault.verify(tx, 'ob_refresh_token', credentials.refreshToken.raw)).ok),
      ).toBe(false);
      expect(
        await orm.em
          .fork()
          .transactional(
            async (tx) =>
              ((await vault.verify(tx, 'ob_authorization_code', credentials.code.raw)) as { reason: string }).reason,
          ),
      ).toBe('suspended');
      // Suspending again changes nothing; the mark is one row per participant.
      expect(await suspendAll(true)).toEqual([false, false, false]);
      expect(await db.knex('auth.suspended_owners').whereIn('owner_id', ['mer_s1', 'bank-s1', 'tpp_s1'])).toHaveLength(
        3,
      );

      expect(await suspendAll(false)).toEqual([true, true, true]);
      expect(Object.values(await reasons(credentials)).every((reason) => reason === 'ok')).toBe(true);
      expect(await suspendAll(false)).toEqual([false, false, false]);
    });

    it("a credential's own state comes first, and a rolled-back suspension never happened", async () => {
      const em = orm.em.fork();
      const revoked = vault.issue(em, { kind: 'merchant_key', ownerId: 'mer_s3', prefix: 'mk_test_' });
      const live = vault.issue(em, { kind: 'merchant_key', ownerId: 'mer_s3', prefix: 'mk_test_' });
      await em.flush();
      await vault.revoke(orm.em.fork(), revoked.credential);
      await orm.em.fork().transactional((tx) => vault.suspend(tx, 'mer_s3'));
      expect(await vault.verify(orm.em.fork(), 'merchant_key', revoked.raw)).toMatchObject({ reason: 'revoked' });
      expect(await vault.verify(orm.em.fork(), 'merchant_key', live.raw)).toMatchObject({ reason: 'suspended' });
      await orm.em.fork().transactional((tx) => vault.resume(tx, 'mer_s3'));

      await expect(
        orm.em.fork().transactional(async (tx) => {
          await vault.suspend(tx, 'mer_s3');
          throw new Error('owner status change failed');
        }),
      ).rejects.toThrow('owner status change failed');
      expect((await vault.verify(orm.em.fork(), 'merchant_key', live.raw)).ok).toBe(true);
    });

    it('reads the suspension in the lookup statement itself: verifications asked together still send one', async () => {
      const em = orm.em.fork();
      const keys = ['mer_s4', 'mer_s5'].map((owner) =>
        vault.issue(em, { kind: 'merchant_key', ownerId: owner, prefix: 'mk_test_' }),
      );
      await em.flush();
      await orm.em.fork().transactional((tx) => vault.suspend(tx, 'mer_s4'));
      const sent: string[] = [];
      const knex = orm.em.getKnex();
      const count = (query: { sql: string }) => void sent.push(query.sql);
      knex.on('query', count);
      try {
        const results = await Promise.all(keys.map((key) => vault.verify(orm.em.fork(), 'merchant_key', key.raw)));
        expect(results.map((result) => (result.ok ? 'ok' : result.reason))).toEqual(['suspended', 'ok']);
        expect(sent).toHaveLength(1);
        expect(sent[0]).toContain('suspended_owners');
      } finally {
        knex.off('query', count);
      }
    });
  });
});
