import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { openSealedSecret, sha256Hex, type Principal } from '@gateway/kernel';
import { Credential, vault } from '@gateway/vault';
import { migrations } from '../migrations';
import { OPEN_BANKING_SCHEMA, start } from '../service';
import { TppEntity } from './tpp.entity';

const admin: Principal = { kind: 'admin' };
const asTpp = (id: string): Principal => ({ kind: 'tpp', id });
const PRIVATE_ADDRESS = 'webhook_url: must point to a public address (not loopback, private, link-local or reserved)';

const REGISTER = `mutation($input: RegisterTppInput!) {
  registerTpp(input: $input) { tppAccessToken webhookSecret tpp { id name redirectUris webhookUrl createdAt } }
}`;
const READ = `query($id: ID!) { tpp(id: $id) { id name redirectUris webhookUrl } }`;
const tppInput = (patch: Record<string, unknown> = {}) => ({
  name: 'Budget App',
  redirectUris: ['https://app.example.com/callback'],
  ...patch,
});

describe('open-banking subgraph: TPPs', () => {
  let db: Database;
  let service: RunningService;
  let production: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  let productionClient: ReturnType<typeof subgraphClient>;
  let orm: ServiceOrm;

  const register = async (patch: Record<string, unknown> = {}) =>
    (await client.execute(REGISTER, { input: tppInput(patch) }, admin)).registerTpp;
  const tppRow = (id: string) => db.knex('open_banking.tpps').where({ id }).first();
  const counts = async () => ({
    tpps: Number((await db.knex('open_banking.tpps').count({ n: '*' }))[0]!.n),
    credentials: Number((await db.knex('auth.credentials').count({ n: '*' }))[0]!.n),
  });

  beforeAll(async () => {
    db = await openTestDatabase();
    // Development with receivers on loopback (PRIVATE_TARGETS on); production with the default (off).
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false, webhookPrivateTargets: true });
    production = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: true });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
    productionClient = subgraphClient(production.graphqlUrl, TEST_PLATFORM_SECRET);
    // The service's own ORM configuration (migrations already applied), for the vault checks.
    orm = await openServiceOrm(db, {
      schema: OPEN_BANKING_SCHEMA,
      entities: [TppEntity, Credential],
      migrations,
      foreignSchemas: ['auth'],
    });
  });
  afterAll(async () => {
    await production.stop();
    await service.stop();
    await db.close();
  });

  it('registers a TPP (admin): access token stored as its SHA-256, webhook secret sealed, redirect URIs kept exactly', async () => {
    // Upper-case host, default port, query and trailing slash: a URL parser would rewrite some of these.
    const redirectUris = [
      'https://App.Example.com:443/cb?x=1&y=2',
      'https://app.example.com/cb/',
      'http://127.0.0.1:8080/callback',
    ];
    const { tppAccessToken, webhookSecret, tpp } = await register({
      redirectUris,
      webhookUrl: 'http://localhost:9100/ob-hooks',
    });
    expect(tppAccessToken).toMatch(/^tpk_[0-9A-Za-z]{32}$/);
    expect(webhookSecret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(tpp).toMatchObject({ name: 'Budget App', redirectUris, webhookUrl: 'http://localhost:9100/ob-hooks' });
    expect(tpp.id).toMatch(/^tpp_[0-9A-Za-z]{24}$/);

    const tokens = await db.knex('auth.credentials').where({ owner_id: tpp.id, kind: 'tpp_key' });
    expect(tokens).toHaveLength(1);
    expect(tokens[0].hash).toBe(sha256Hex(tppAccessToken));
    expect(JSON.stringify(tokens)).not.toContain(tppAccessToken);
    expect(await vault.verify(orm.em.fork(), 'tpp_key', tppAccessToken)).toMatchObject({
      ok: true,
      credential: { ownerId: tpp.id },
    });

    const row = await tppRow(tpp.id);
    expect(row.redirect_uris).toEqual(redirectUris);
    expect(JSON.stringify(row)).not.toContain(webhookSecret);
    expect(openSealedSecret(row.webhook_secret_sealed, TEST_PLATFORM_SECRET)).toBe(webhookSecret);
  });

  it('shows secrets only at registration: no Tpp field carries one', async () => {
    const { tppAccessToken, webhookSecret, tpp } = await register({ webhookUrl: 'https://hooks.example.com/ob' });
    const { __type } = await client.execute(`{ __type(name: "Tpp") { fields { name } } }`);
    expect(__type.fields.map((field: { name: string }) => field.name).sort()).toEqual([
      'authorisedConsentCount',
      'createdAt',
      'id',
      'jwks',
      'mode',
      'name',
      'redirectUris',
      'securityProfile',
      'status',
      'webhookUrl',
    ]);
    const read = JSON.stringify(await client.execute(READ, { id: tpp.id }, admin));
    expect(read).not.toContain(tppAccessToken);
    expect(read).not.toContain(webhookSecret);
  });

  it("counts a TPP's authorised consents for the operator only (issue 50): the TPP itself is FORBIDDEN", async () => {
    const { tpp } = await register();
    const COUNT = `query($id: ID!) { tpp(id: $id) { id authorisedConsentCount } }`;
    expect((await client.execute(COUNT, { id: tpp.id }, admin)).tpp).toEqual({ id: tpp.id, authorisedConsentCount: 0 });
    expect(await client.errorCode(COUNT, { id: tpp.id }, asTpp(tpp.id))).toBe('FORBIDDEN');
  });

  it('only an operator registers TPPs, and a refused call writes nothing', async () => {
    const before = await counts();
    expect(await client.errorCode(REGISTER, { input: tppInput() })).toBe('UNAUTHORIZED');
    expect(
      await client.errorCode(REGISTER, { input: tppInput() }, { kind: 'merchant', id: 'mer_x', scopes: ['test'] }),
    ).toBe('FORBIDDEN');
    expect(await client.errorCode(REGISTER, { input: tppInput() }, asTpp('tpp_x'))).toBe('FORBIDDEN');
    expect(await counts()).toEqual(before);
  });

  it('validates every field and writes nothing for refused input', async () => {
    const before = await counts();
    const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ redirectUris: [] }, 'redirect_uris'],
      [{ redirectUris: eleven }, 'redirect_uris'],
      [{ redirectUris: ['https://app.example.com/cb', 'https://app.example.com/cb'] }, 'redirect_uris'],
      [{ redirectUris: ['/callback'] }, 'redirect_uris\\[0\\]'],
      [{ redirectUris: ['https://app.example.com/cb', 'https://app.example.com/cb#state'] }, 'redirect_uris\\[1\\]'],
      [{ redirectUris: ['https://app.example.com/cb#'] }, 'redirect_uris\\[0\\]'],
      [{ redirectUris: [' https://app.example.com/cb'] }, 'redirect_uris\\[0\\]'],
      [{ redirectUris: ['javascript:alert(1)'] }, 'redirect_uris\\[0\\]'],
      [{ webhookUrl: 'ftp://hooks.example.com' }, 'webhook_url'],
      [{ webhookUrl: 'not a url' }, 'webhook_url'],
    ];
    for (const [patch, field] of cases) {
      const result = await client.attempt(REGISTER, { input: tppInput(patch) }, admin);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(result.errors?.[0]?.extensions?.detail).toMatch(new RegExp(`^${field}: `));
    }
    expect(await counts()).toEqual(before);
  });

  it('lets an operator or the TPP itself read it; another TPP sees TPP_NOT_FOUND', async () => {
    const a = (await register({ name: 'App A', webhookUrl: 'https://a.example.com/h' })).tpp;
    const b = (await register({ name: 'App B' })).tpp;
    expect((await client.execute(READ, { id: a.id }, admin)).tpp).toEqual({
      id: a.id,
      name: 'App A',
      redirectUris: ['https://app.example.com/callback'],
      webhookUrl: 'https://a.example.com/h',
    });
    expect((await client.execute(READ, { id: a.id }, asTpp(a.id))).tpp).toMatchObject({
      id: a.id,
      webhookUrl: 'https://a.example.com/h',
    });

    // Same answer as for an id that does not exist: a token cannot probe which TPPs exist.
    const foreign = await client.attempt(READ, { id: a.id }, asTpp(b.id));
    expect(foreign.data).toBeNull();
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'TPP_NOT_FOUND', status: 404 });
    expect(await client.errorCode(READ, { id: 'tpp_unknown' }, admin)).toBe('TPP_NOT_FOUND');
    expect(await client.errorCode(READ, { id: a.id })).toBe('INVALID_API_KEY');
    expect(await client.errorCode(READ, { id: a.id }, { kind: 'merchant', id: 'mer_x', scopes: ['test'] })).toBe(
      'FORBIDDEN',
    );
  });

  it('in production mode requires https redirect URIs and https webhook URLs to public hosts', async () => {
    const before = await counts();
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ redirectUris: ['http://app.example.com/cb'] }, 'redirect_uris[0]: must be an https URL'],
      [{ webhookUrl: 'http://hooks.example.com/h' }, 'webhook_url: must be an https URL'],
      [{ webhookUrl: 'https://localhost/h' }, PRIVATE_ADDRESS],
      [{ webhookUrl: 'https://10.0.0.8/h' }, PRIVATE_ADDRESS],
      [{ webhookUrl: 'https://169.254.169.254/h' }, PRIVATE_ADDRESS],
      [{ webhookUrl: 'https://[fc00::2]/h' }, PRIVATE_ADDRESS],
    ];
    for (const [patch, detail] of refused) {
      const result = await productionClient.attempt(REGISTER, { input: tppInput(patch) }, admin);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', detail });
    }
    expect(await counts()).toEqual(before);

    const { tpp } = (
      await productionClient.execute(
        REGISTER,
        { input: tppInput({ webhookUrl: 'https://hooks.example.com/h' }) },
        admin,
      )
    ).registerTpp;
    expect(tpp).toMatchObject({
      redirectUris: ['https://app.example.com/callback'],
      webhookUrl: 'https://hooks.example.com/h',
    });
  });

  it('answers federation: Tpp references, with the webhook URL still checked', async () => {
    const { tpp } = await register({ name: 'Referenced App', webhookUrl: 'https://ref.example.com/h' });
    const ENTITIES = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Tpp { id name } } }`;
    const { _entities } = await client.execute(ENTITIES, {
      r: [
        { __typename: 'Tpp', id: tpp.id },
        { __typename: 'Tpp', id: 'tpp_ghost' },
      ],
    });
    expect(_entities).toEqual([{ id: tpp.id, name: 'Referenced App' }, null]);

    const RESTRICTED = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Tpp { webhookUrl } } }`;
    const r = [{ __typename: 'Tpp', id: tpp.id }];
    expect(await client.errorCode(RESTRICTED, { r })).toBe('INVALID_API_KEY');
    expect((await client.execute(RESTRICTED, { r }, admin))._entities).toEqual([
      { webhookUrl: 'https://ref.example.com/h' },
    ]);
    const { _service } = await client.execute(`{ _service { sdl } }`);
    expect(_service.sdl).toMatch(/type Tpp\s+@key\(fields: "id"\)/);
  });

  it('suspension (operator only): status, vault mark and one audit entry per change, even for suspensions racing each other', async () => {
    const { tpp, tppAccessToken } = await register({ name: 'Raced App' });
    const SUSPEND = `mutation($id: ID!) { suspendTpp(id: $id) { id status } }`;
    const RESUME = `mutation($id: ID!) { resumeTpp(id: $id) { id status } }`;
    expect(await client.errorCode(SUSPEND, { id: tpp.id }, asTpp(tpp.id))).toBe('FORBIDDEN');
    expect(await client.errorCode(SUSPEND, { id: 'tpp_unknown' }, admin)).toBe('TPP_NOT_FOUND');

    const raced = await Promise.all([1, 2, 3].map(() => client.execute(SUSPEND, { id: tpp.id }, admin)));
    expect(raced.map((answer) => answer.suspendTpp.status)).toEqual(['SUSPENDED', 'SUSPENDED', 'SUSPENDED']);
    expect((await tppRow(tpp.id)).status).toBe('SUSPENDED');
    expect(await db.knex('auth.suspended_owners').where({ owner_id: tpp.id })).toHaveLength(1);
    expect(await vault.verify(orm.em.fork(), 'tpp_key', tppAccessToken)).toMatchObject({
      ok: false,
      reason: 'suspended',
    });
    const entries = () =>
      db
        .knex('audit.entries')
        .where({ target: tpp.id })
        .whereIn('action', ['tpp.suspended', 'tpp.resumed'])
        .orderBy('at')
        .select('action', 'changes');
    expect(await entries()).toEqual([
      { action: 'tpp.suspended', changes: { status: { from: 'ACTIVE', to: 'SUSPENDED' } } },
    ]);

    expect((await client.execute(RESUME, { id: tpp.id }, admin)).resumeTpp.status).toBe('ACTIVE');
    expect(await db.knex('auth.suspended_owners').where({ owner_id: tpp.id })).toHaveLength(0);
    expect((await vault.verify(orm.em.fork(), 'tpp_key', tppAccessToken)).ok).toBe(true);
    expect((await entries()).map((entry: { action: string }) => entry.action)).toEqual([
      'tpp.suspended',
      'tpp.resumed',
    ]);
  });
});
