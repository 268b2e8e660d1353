import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { sha256Hex, type Principal } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import { openVaultOrm } from '@gateway/vault';
import { start } from '../service';

const CREATE = `mutation($input: CreateAdminKeyInput!) { createAdminKey(input: $input) { id name createdAt adminKey } }`;
const REVOKE = `mutation($id: ID!) { revokeAdminKey(id: $id) { id name createdAt revokedAt } }`;
const LIST = `{ adminKeys { id name createdAt revokedAt } }`;

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
    expect(created.adminKey).toMatch(/^adk_sec_[0-9A-Za-z]{32}$/);
    const [row] = await db.knex('auth.credentials').where({ owner_id: created.id });
    expect(row).toMatchObject({
      kind: 'admin_key',
      label: 'alice',
      hash: sha256Hex(created.adminKey),
      revoked_at: null,
    });
    expect(JSON.stringify(row)).not.toContain(created.adminKey);
    // What the router does with the header: the vault answers the key's id and name.
    const orm = await openVaultOrm(db);
    const verified = await vault.verify(orm.em.fork(), 'admin_key', created.adminKey);
    expect(verified.ok && [verified.credential.ownerId, verified.credential.label]).toEqual([created.id, 'alice']);
  });

  it('records admin_key.created in the same transaction, with the acting key, ip and request id, never the secret', async () => {
    const created = await create('bob', { kind: 'admin', id: 'adk_creator', name: 'carol', ip: '10.9.9.9' });
    const [entry] = await entries({ action: 'admin_key.created', target: created.id });
    expect(entry).toMatchObject({
      actor_kind: 'admin',
      actor_id: 'adk_creator',
      actor_name: 'carol',
      ip: '10.9.9.9',
      changes: { name: { to: 'bob' }, admin_key: { to: '[secret]' } },
    });
    expect(entry.request_id).toMatch(/^req_/);
    expect(JSON.stringify(await db.knex('audit.entries'))).not.toContain(created.adminKey);
  });

  it('refuses a name a live key has, ADMIN_KEY, an empty or control-character name; a revoked key frees its name', async () => {
    const first = await create('dave');
    expect(await client.errorCode(CREATE, { input: { name: 'dave' } }, operator)).toBe('ADMIN_KEY_NAME_TAKEN');
    expect(await client.errorCode(CREATE, { input: { name: 'admin_key' } }, operator)).toBe('ADMIN_KEY_NAME_TAKEN');
    expect(await client.errorCode(CREATE, { input: { name: '  ' } }, operator)).toBe('VALIDATION_ERROR');
    expect(await client.errorCode(CREATE, { input: { name: 'eve\nINFO fake' } }, operator)).toBe('VALIDATION_ERROR');
    expect(await client.errorCode(CREATE, { input: { name: 'x'.repeat(65) } }, operator)).toBe('VALIDATION_ERROR');
    await client.execute(REVOKE, { id: first.id }, operator);
    expect((await create('dave')).id).not.toBe(first.id);
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

  it('an unknown id is ADMIN_KEY_NOT_FOUND, as is the id of another kind of credential', async () => {
    expect(await client.errorCode(REVOKE, { id: 'adk_nosuchkey' }, operator)).toBe('ADMIN_KEY_NOT_FOUND');
    const [other] = await db.knex('auth.credentials').whereNot({ kind: 'admin_key' }).limit(1);
    if (other) expect(await client.errorCode(REVOKE, { id: other.owner_id }, operator)).toBe('ADMIN_KEY_NOT_FOUND');
  });

  it('lists the keys newest first with their state and never a secret', async () => {
    const listed = (await client.execute(LIST, {}, operator)).adminKeys as Array<Record<string, unknown>>;
    expect(listed.map((key) => key.name)).toEqual(expect.arrayContaining(['alice', 'bob', 'dave', 'frank']));
    expect(listed.find((key) => key.name === 'frank')!.revokedAt).toEqual(expect.any(String));
    expect(listed.find((key) => key.name === 'alice')!.revokedAt).toBeNull();
    const times = listed.map((key) => Date.parse(key.createdAt as string));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(JSON.stringify(listed)).not.toContain('adk_sec_');
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
