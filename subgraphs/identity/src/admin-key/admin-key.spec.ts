import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { sha256Hex, type Principal } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import { openVaultOrm } from '@gateway/vault';
import { start } from '../service';

const CREATE = `mutation($input: CreateAdminKeyInput!) { createAdminKey(input: $input) { id name createdAt adminKey } }`;
const REVOKE = `mutation($id: ID!) { revokeAdminKey(id: $id) { id name createdAt revokedAt createdBy revokedWith { id name revokedAt createdBy } } }`;
const LIST = `{ adminKeys { id name createdAt revokedAt createdBy } }`;

const operator: Principal = { kind: 'admin', name: 'ADMIN_KEY', ip: '10.1.2.3' };

describe('identity subgraph: named admin keys', () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  const entries = (where: Record<string, unknown>) => db.knex('audit.entries').where(where).orderBy('at');
  const create = (name: string, principal: Principal = operator) =>
    client.execute(CREATE, { input: { name } }, principal).then((data) => data.createAdminKey);

  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('creates a key shown once: only its hash is stored, with the name as the label the router reads', async () => {
    const created = await create('alice');
    expect(created).toMatchObject({ id: expect.stringMatching(/^adk_/), name: 'alice' });
    // One prefix for every admin key the platform generates (the configured one's too): scanners know it.
    expect(created.adminKey).toMatch(/^adm_[0-9A-Za-z]{32}$/);
    const [row] = await db.knex('auth.credentials').where({ owner_id: created.id });
    expect(row).toMatchObject({
      kind: 'admin_key',
      label: 'alice',
      hash: sha256Hex(created.adminKey),
      revoked_at: null,
      created_by: 'ADMIN_KEY',
    });
    expect(JSON.stringify(row)).not.toContain(created.adminKey);
    // What the router does with the header: the vault answers the key's id and name.
    const orm = await openVaultOrm(db);
    const verified = await vault.verify(orm.em.fork(), 'admin_key', created.adminKey);
    expect(verified.ok && [verified.credential.ownerId, verified.credential.label]).toEqual([created.id, 'alice']);
  });

  it('records admin_key.created in the same transaction, with the acting key, its lineage, ip and request id, never the secret', async () => {
    const carol = await create('carol');
    const actor: Principal = { kind: 'admin', id: carol.id, name: 'carol', ip: '10.9.9.9' };
    const created = await create('bob', actor);
    const [entry] = await entries({ action: 'admin_key.created', target: created.id });
    expect(entry).toMatchObject({
      actor_kind: 'admin',
      actor_id: carol.id,
      actor_name: 'carol',
      ip: '10.9.9.9',
      changes: { name: { to: 'bob' }, created_by: { to: carol.id }, admin_key: { to: '[secret]' } },
    });
    expect(entry.request_id).toMatch(/^req_/);
    expect(JSON.stringify(await db.knex('audit.entries'))).not.toContain(created.adminKey);
  });

  it('refuses a name a live key has; a revoked key frees its name', async () => {
    const first = await create('dave');
    expect(await client.errorCode(CREATE, { input: { name: 'dave' } }, operator)).toBe('ADMIN_KEY_NAME_TAKEN');
    await client.execute(REVOKE, { id: first.id }, operator);
    expect((await create('dave')).id).not.toBe(first.id);
  });

  it('names are ASCII [a-z0-9._-], 3-40 characters, never ADMIN_KEY in any spelling: 400 naming name', async () => {
    const refusal = async (name: string) => {
      const result = await client.attempt(CREATE, { input: { name } }, operator);
      const error = result.errors?.[0]?.extensions as { code?: string; detail?: string } | undefined;
      return [name, error?.code, error?.detail?.split(':')[0]];
    };
    for (const name of [
      'ADMIN_K\u0415Y', // the probe: a Cyrillic Е, the configured key's look-alike in the audit log
      'ADMIN_KEY',
      'admin_key',
      'Admin-Key',
      'admin.key',
      'adminkey',
      'adm1n_k3y',
      'аlice', // Cyrillic а
      'Alice',
      'eve\nINFO fake',
      'on call',
      'ab',
      'x'.repeat(41),
      '  ',
    ])
      expect(await refusal(name)).toEqual([name, 'VALIDATION_ERROR', 'name']);
    for (const name of ['on-call', 'ops.eve_2', 'abc', 'x'.repeat(40), 'admin', 'key-admin'])
      expect((await create(name)).name).toBe(name);
  });

  it('two creations racing for one name: exactly one key', async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() => client.attempt(CREATE, { input: { name: 'racer' } }, operator)),
    );
    expect(results.filter((result) => !result.errors).length).toBe(1);
    expect(results.filter((result) => result.errors?.[0]?.extensions?.code === 'ADMIN_KEY_NAME_TAKEN').length).toBe(2);
    expect(await db.knex('auth.credentials').where({ kind: 'admin_key', label: 'racer' })).toHaveLength(1);
  });

  it('revokes at once (the vault refuses it), idempotently: a second revocation answers the record and records nothing', async () => {
    const created = await create('frank');
    const revoked = (await client.execute(REVOKE, { id: created.id }, operator)).revokeAdminKey;
    expect(revoked).toMatchObject({ id: created.id, name: 'frank', revokedAt: expect.any(String) });
    const orm = await openVaultOrm(db);
    expect(await vault.verify(orm.em.fork(), 'admin_key', created.adminKey)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    const again = (await client.execute(REVOKE, { id: created.id }, operator)).revokeAdminKey;
    expect(again).toEqual(revoked);
    const recorded = await entries({ action: 'admin_key.revoked', target: created.id });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ actor_kind: 'admin', actor_name: 'ADMIN_KEY', ip: '10.1.2.3' });
  });

  it('revoking a key revokes the keys it created and theirs, in one call, each audited; the answer lists them', async () => {
    const orm = await openVaultOrm(db);
    const as = (key: { id: string; name: string }): Principal => ({ kind: 'admin', id: key.id, name: key.name });
    const eve = await create('op-eve');
    const backdoor = await create('op-eve-backdoor', as(eve));
    const deeper = await create('op-eve-deeper', as(backdoor));
    const bystander = await create('op-bystander');
    expect(backdoor.id).not.toBe(eve.id);
    expect((await db.knex('auth.credentials').where({ owner_id: deeper.id }).first()).created_by).toBe(backdoor.id);

    const answer = (await client.execute(REVOKE, { id: eve.id }, operator)).revokeAdminKey;
    expect(answer).toMatchObject({ id: eve.id, revokedAt: expect.any(String), createdBy: 'ADMIN_KEY' });
    expect(answer.revokedWith).toEqual([
      { id: backdoor.id, name: 'op-eve-backdoor', revokedAt: answer.revokedAt, createdBy: eve.id },
      { id: deeper.id, name: 'op-eve-deeper', revokedAt: answer.revokedAt, createdBy: backdoor.id },
    ]);
    for (const key of [eve, backdoor, deeper])
      expect(await vault.verify(orm.em.fork(), 'admin_key', key.adminKey)).toMatchObject({
        ok: false,
        reason: 'revoked',
      });
    expect(await vault.verify(orm.em.fork(), 'admin_key', bystander.adminKey)).toMatchObject({ ok: true });
    expect(await entries({ action: 'admin_key.revoked', target: backdoor.id })).toEqual([
      expect.objectContaining({
        actor_name: 'ADMIN_KEY',
        changes: {
          admin_key: { from: '[secret]', to: null },
          revoked_at: { from: null, to: answer.revokedAt },
          revoked_with: { to: eve.id },
        },
      }),
    ]);
    expect(await entries({ action: 'admin_key.revoked', target: deeper.id })).toHaveLength(1);

    // Idempotent: the same answer, nothing recorded twice; a revoked key makes no more keys.
    expect((await client.execute(REVOKE, { id: eve.id }, operator)).revokeAdminKey).toEqual(answer);
    expect(await entries({ action: 'admin_key.revoked', target: backdoor.id })).toHaveLength(1);
    expect(await client.errorCode(CREATE, { input: { name: 'op-eve-later' } }, as(backdoor))).toBe('UNAUTHORIZED');
  });

  it('a live key under a revoked one (made before lineage was kept) is revoked when its ancestor is revoked again', async () => {
    const old = await create('legacy-maker');
    const child = await create('legacy-child', { kind: 'admin', id: old.id, name: 'legacy-maker' });
    // As it stood before issue 46: the maker revoked alone, its child still working.
    await db.knex('auth.credentials').where({ owner_id: old.id }).update({ revoked_at: new Date() });
    const answer = (await client.execute(REVOKE, { id: old.id }, operator)).revokeAdminKey;
    expect(answer.revokedWith).toEqual([expect.objectContaining({ id: child.id, revokedAt: expect.any(String) })]);
    expect(await entries({ action: 'admin_key.revoked', target: old.id })).toHaveLength(0);
    expect(await entries({ action: 'admin_key.revoked', target: child.id })).toHaveLength(1);
  });

  it('an unknown id is ADMIN_KEY_NOT_FOUND, as is the id of another kind of credential', async () => {
    expect(await client.errorCode(REVOKE, { id: 'adk_nosuchkey' }, operator)).toBe('ADMIN_KEY_NOT_FOUND');
    const [other] = await db.knex('auth.credentials').whereNot({ kind: 'admin_key' }).limit(1);
    if (other) expect(await client.errorCode(REVOKE, { id: other.owner_id }, operator)).toBe('ADMIN_KEY_NOT_FOUND');
  });

  it('lists the keys newest first with their state and never a secret', async () => {
    const listed = (await client.execute(LIST, {}, operator)).adminKeys as Array<Record<string, unknown>>;
    expect(listed.map((key) => key.name)).toEqual(expect.arrayContaining(['alice', 'bob', 'dave', 'frank']));
    expect(listed.find((key) => key.name === 'alice')!.createdBy).toBe('ADMIN_KEY');
    expect(listed.find((key) => key.name === 'frank')!.revokedAt).toEqual(expect.any(String));
    expect(listed.find((key) => key.name === 'alice')!.revokedAt).toBeNull();
    const times = listed.map((key) => Date.parse(key.createdAt as string));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(JSON.stringify(listed)).not.toMatch(/adm_[0-9A-Za-z]{32}/);
  });

  it('is for operators only: other principals are refused', async () => {
    for (const principal of [
      { kind: 'anonymous' },
      { kind: 'bank', id: 'alpha' },
      { kind: 'merchant', id: 'mer_1' },
    ] as Principal[]) {
      expect(await client.errorCode(CREATE, { input: { name: 'mallory' } }, principal)).toMatch(
        /UNAUTHORIZED|FORBIDDEN/,
      );
      expect(await client.errorCode(LIST, {}, principal)).toMatch(/UNAUTHORIZED|FORBIDDEN/);
      expect(await client.errorCode(REVOKE, { id: 'adk_x' }, principal)).toMatch(/UNAUTHORIZED|FORBIDDEN/);
    }
  });
});
