import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import type { Principal } from '@gateway/kernel';
import { start } from '../service';

const operator: Principal = { kind: 'admin', id: 'adk_ops', name: 'alice' };
const REGISTER = `mutation($input: RegisterTppInput!) {
  registerTpp(input: $input) { tppAccessToken webhookSecret tpp { id securityProfile jwks } }
}`;
const ROTATE = `mutation($id: ID!) { rotateTppToken(id: $id) { tppAccessToken } }`;

/** A TPP's security profile at operator registration (POST /ob/tpps): spec as before, or fapi2 with keys and no tpk_. */
describe('open-banking subgraph: TPP security profiles', () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  let privateJwk: JWK;
  let publicJwk: JWK;
  const input = (patch: Record<string, unknown>) => ({
    input: { name: 'Keyed App', redirectUris: ['https://app.example.com/cb'], ...patch },
  });

  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateJwk = { ...(await exportJWK(pair.privateKey)), kid: 'k1' };
    const { d, ...rest } = privateJwk;
    void d;
    publicJwk = rest;
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('registers a spec TPP by default, with its tpk_ and no keys', async () => {
    const { registerTpp } = await client.execute(REGISTER, input({}), operator);
    expect(registerTpp.tppAccessToken).toMatch(/^tpk_/);
    expect(registerTpp.tpp).toMatchObject({ securityProfile: 'spec', jwks: null });
  });

  it('registers a fapi2 TPP with its public keys and no tpk_, recorded in the audit log by kid; rotation makes none', async () => {
    const { registerTpp } = await client.execute(
      REGISTER,
      input({ securityProfile: 'fapi2', jwks: { keys: [publicJwk] } }),
      operator,
    );
    expect(registerTpp.tppAccessToken).toBeNull();
    expect(registerTpp.webhookSecret).toMatch(/^whsec_/);
    expect(registerTpp.tpp).toEqual({
      id: expect.stringMatching(/^tpp_/),
      securityProfile: 'fapi2',
      jwks: { keys: [{ kty: 'EC', kid: 'k1', crv: 'P-256', x: publicJwk.x, y: publicJwk.y }] },
    });
    const { id } = registerTpp.tpp;
    expect(await db.knex('auth.credentials').where({ owner_id: id })).toEqual([]);
    const [entry] = await db.knex('audit.entries').where({ action: 'tpp.registered', target: id });
    expect(entry.changes).toMatchObject({ security_profile: { to: 'fapi2' }, jwks_kids: { to: ['k1'] } });
    expect(entry.changes.tpp_access_token).toBeUndefined();

    expect(await client.errorCode(ROTATE, { id }, operator)).toBe('FORBIDDEN');
    expect(await db.knex('auth.credentials').where({ owner_id: id })).toEqual([]);
  });

  it('refuses a fapi2 TPP without keys, keys on a spec TPP, a private key, and an unknown profile, writing nothing', async () => {
    const before = await db.knex('open_banking.tpps').count({ n: '*' });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ securityProfile: 'fapi2' }, /^jwks: required with security_profile fapi2/],
      [{ jwks: { keys: [publicJwk] } }, /^jwks: only for security_profile fapi2/],
      [{ securityProfile: 'fapi2', jwks: { keys: [privateJwk] } }, /^jwks\.keys\[0\]\.d: private key material/],
      [{ securityProfile: 'fapi1' }, /^security_profile: must be spec or fapi2/],
    ];
    for (const [patch, detail] of cases) {
      const result = await client.attempt(REGISTER, input(patch), operator);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(result.errors?.[0]?.extensions?.detail).toMatch(detail);
    }
    expect(await db.knex('open_banking.tpps').count({ n: '*' })).toEqual(before);
  });
});
