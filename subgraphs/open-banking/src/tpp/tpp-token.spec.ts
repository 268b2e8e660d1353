import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { sha256Hex, type Principal } from '@gateway/kernel';
import { openVaultOrm, vault } from '@gateway/vault';
import { start } from '../service';

const operator: Principal = { kind: 'admin', id: 'adk_ops', name: 'alice', ip: '10.0.0.8' };
const asTpp = (id: string): Principal => ({ kind: 'tpp', id, ip: '10.0.0.9' });

const REGISTER = `mutation($input: RegisterTppInput!) { registerTpp(input: $input) { tppAccessToken tpp { id } } }`;
const ROTATE = `mutation($id: ID!) { rotateTppToken(id: $id) { tppAccessToken } }`;

describe('open-banking subgraph: TPP token rotation', () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  const register = async () => {
    const { registerTpp } = await client.execute(
      REGISTER,
      { input: { name: 'Budget App', redirectUris: ['https://app.example.com/callback'] } },
      operator,
    );
    return { id: registerTpp.tpp.id as string, token: registerTpp.tppAccessToken as string };
  };
  const verify = async (raw: string) => vault.verify((await openVaultOrm(db)).em.fork(), 'tpp_key', raw);
  const rotate = async (id: string, principal: Principal) =>
    (await client.execute(ROTATE, { id }, principal)).rotateTppToken.tppAccessToken as string;

  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('the TPP rotates its own token: the new one works, the old one is revoked at once, tpp.token_rotated recorded', async () => {
    const tpp = await register();
    const token = await rotate(tpp.id, asTpp(tpp.id));
    expect(token).toMatch(/^tpk_[0-9A-Za-z]{32}$/);
    expect(await verify(tpp.token)).toMatchObject({ ok: false, reason: 'revoked' });
    const fresh = await verify(token);
    expect(fresh.ok && fresh.credential.ownerId).toBe(tpp.id);
    const [entry] = await db.knex('audit.entries').where({ action: 'tpp.token_rotated', target: tpp.id });
    expect(entry).toMatchObject({
      actor_kind: 'tpp',
      actor_id: tpp.id,
      actor_name: null,
      ip: '10.0.0.9',
      changes: { tpp_access_token: { from: '[secret]', to: '[secret]' } },
    });
    expect(JSON.stringify(await db.knex('audit.entries'))).not.toContain(token);
  });

  it('an operator rotates it too, named in the audit log', async () => {
    const tpp = await register();
    const token = await rotate(tpp.id, operator);
    expect((await verify(token)).ok).toBe(true);
    expect((await verify(tpp.token)).ok).toBe(false);
    const [entry] = await db.knex('audit.entries').where({ action: 'tpp.token_rotated', target: tpp.id });
    expect(entry).toMatchObject({ actor_kind: 'admin', actor_id: 'adk_ops', actor_name: 'alice' });
  });

  it('another TPP gets TPP_NOT_FOUND (as for an unknown id) and changes nothing; other principals are refused', async () => {
    const tpp = await register();
    const other = await register();
    expect(await client.errorCode(ROTATE, { id: tpp.id }, asTpp(other.id))).toBe('TPP_NOT_FOUND');
    expect(await client.errorCode(ROTATE, { id: 'tpp_nosuchtpp' }, operator)).toBe('TPP_NOT_FOUND');
    expect(await client.errorCode(ROTATE, { id: tpp.id })).toBe('INVALID_API_KEY');
    expect(await client.errorCode(ROTATE, { id: tpp.id }, { kind: 'merchant', id: 'mer_1' })).toBe('FORBIDDEN');
    expect((await verify(tpp.token)).ok).toBe(true);
    expect(await db.knex('audit.entries').where({ action: 'tpp.token_rotated', target: tpp.id })).toHaveLength(0);
  });

  it('two rotations racing leave exactly one valid token', async () => {
    const tpp = await register();
    const tokens = await Promise.all([rotate(tpp.id, asTpp(tpp.id)), rotate(tpp.id, operator)]);
    const valid = await Promise.all(tokens.map(async (token) => (await verify(token)).ok));
    expect(valid.filter(Boolean)).toHaveLength(1);
    const live = await db.knex('auth.credentials').where({ owner_id: tpp.id, kind: 'tpp_key' }).whereNull('revoked_at');
    expect(live.map((row) => row.hash)).toEqual([sha256Hex(tokens[valid.indexOf(true)]!)]);
  });
});
