import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { openSealedSecret, sha256Hex, type Principal } from '@gateway/kernel';
import { Credential, vault } from '@gateway/vault';
import { composeIBAN } from 'ibantools';
import { migrations } from '../migrations';
import { PAYMENTS_SCHEMA, start } from '../service';
import { MerchantEntity } from './merchant.entity';

const admin: Principal = { kind: 'admin' };
const asMerchant = (id: string, mode = 'test'): Principal => ({ kind: 'merchant', id, scopes: [mode] });
const SETTLEMENT_IBAN = composeIBAN({ countryCode: 'LY', bban: '101001000000000000001' })!;
const PRIVATE_ADDRESS = 'webhook_url: must point to a public address (not loopback, private, link-local or reserved)';

const REGISTER = `mutation($input: RegisterMerchantInput!) {
  registerMerchant(input: $input) { apiKey webhookSecret merchant { id name mode status webhookUrl settlementIban createdAt updatedAt } }
}`;
const READ = `query($id: ID!) { merchant(id: $id) { id name mode status webhookUrl settlementIban } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateMerchantInput!) { updateMerchant(id: $id, input: $input) { id name webhookUrl } }`;
const ROTATE_KEY = `mutation($id: ID!) { rotateMerchantKey(id: $id) { apiKey } }`;
const ROTATE_SECRET = `mutation($id: ID!) { rotateWebhookSecret(id: $id) { webhookSecret } }`;

describe('payments subgraph: merchants', () => {
  let db: Database;
  let service: RunningService;
  let production: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  let productionClient: ReturnType<typeof subgraphClient>;
  let orm: ServiceOrm;

  const register = async (input: Record<string, unknown>) =>
    (await client.execute(REGISTER, { input }, admin)).registerMerchant;
  const merchantRow = (id: string) => db.knex('payments.merchants').where({ id }).first();
  const liveKeys = (ownerId: string) =>
    db.knex('auth.credentials').where({ owner_id: ownerId, kind: 'merchant_key' }).whereNull('revoked_at');
  const counts = async () => ({
    merchants: Number((await db.knex('payments.merchants').count({ n: '*' }))[0]!.n),
    credentials: Number((await db.knex('auth.credentials').count({ n: '*' }))[0]!.n),
  });
  const verifyKey = (raw: string) => vault.verify(orm.em.fork(), 'merchant_key', raw);

  beforeAll(async () => {
    db = await openTestDatabase();
    // Development with receivers on loopback (PRIVATE_TARGETS on); production with the default (off).
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false, webhookPrivateTargets: true });
    production = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: true });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
    productionClient = subgraphClient(production.graphqlUrl, TEST_PLATFORM_SECRET);
    // The service's own ORM configuration (migrations already applied), for the vault checks.
    orm = await openServiceOrm(db, {
      schema: PAYMENTS_SCHEMA,
      entities: [MerchantEntity, Credential],
      migrations,
      foreignSchemas: ['auth'],
    });
  });
  afterAll(async () => {
    await production.stop();
    await service.stop();
    await db.close();
  });

  it('registers a merchant (admin): test mode by default, key stored as its SHA-256, webhook secret sealed', async () => {
    const input = {
      name: 'Corner Shop',
      webhookUrl: 'http://127.0.0.1:9000/hooks',
      settlementIban: SETTLEMENT_IBAN.toLowerCase().replace(/(.{4})/g, '$1 '),
    };
    const { apiKey, webhookSecret, merchant } = await register(input);
    expect(apiKey).toMatch(/^mk_test_[0-9A-Za-z]{32}$/);
    expect(webhookSecret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(merchant).toMatchObject({
      name: 'Corner Shop',
      mode: 'test',
      status: 'ACTIVE',
      webhookUrl: 'http://127.0.0.1:9000/hooks',
      settlementIban: SETTLEMENT_IBAN,
    });
    expect(merchant.id).toMatch(/^mer_[0-9A-Za-z]{24}$/);

    const keys = await db.knex('auth.credentials').where({ owner_id: merchant.id, kind: 'merchant_key' });
    expect(keys).toHaveLength(1);
    expect(keys[0].hash).toBe(sha256Hex(apiKey));
    expect(keys[0].scopes).toEqual(['test']);
    expect(JSON.stringify(keys)).not.toContain(apiKey);
    expect(await verifyKey(apiKey)).toMatchObject({ ok: true, credential: { ownerId: merchant.id } });

    const row = await merchantRow(merchant.id);
    expect(JSON.stringify(row)).not.toContain(webhookSecret);
    expect(openSealedSecret(row.webhook_secret_sealed, TEST_PLATFORM_SECRET)).toBe(webhookSecret);
  });

  it('issues mk_live_ keys scoped to live for a live merchant', async () => {
    const { apiKey, merchant } = await register({ name: 'Live Shop', mode: 'live' });
    expect(apiKey).toMatch(/^mk_live_/);
    expect(merchant).toMatchObject({ mode: 'live', webhookUrl: null, settlementIban: null });
    expect((await liveKeys(merchant.id))[0].scopes).toEqual(['live']);
  });

  it('shows secrets only at registration: no Merchant field carries one', async () => {
    const { apiKey, webhookSecret, merchant } = await register({
      name: 'Quiet Shop',
      webhookUrl: 'https://hooks.example.com/q',
    });
    const { __type } = await client.execute(`{ __type(name: "Merchant") { fields { name } } }`);
    expect(__type.fields.map((field: { name: string }) => field.name).sort()).toEqual([
      'createdAt',
      'dashboardSessionCount',
      'id',
      'mode',
      'name',
      'openPaymentSessionCount',
      'settlementIban',
      'status',
      'updatedAt',
      'webhookUrl',
    ]);
    const read = JSON.stringify(await client.execute(READ, { id: merchant.id }, admin));
    expect(read).not.toContain(apiKey);
    expect(read).not.toContain(webhookSecret);
  });

  it("counts a merchant's open payment sessions and dashboard sessions for the operator only (issue 50)", async () => {
    const { merchant } = await register({ name: 'Counted Shop' });
    const COUNTS = `query($id: ID!) { merchant(id: $id) { id openPaymentSessionCount dashboardSessionCount } }`;
    expect((await client.execute(COUNTS, { id: merchant.id }, admin)).merchant).toEqual({
      id: merchant.id,
      openPaymentSessionCount: 0,
      dashboardSessionCount: 0,
    });
    expect(await client.errorCode(COUNTS, { id: merchant.id }, asMerchant(merchant.id))).toBe('FORBIDDEN');
  });

  it('only an operator registers merchants, and a refused call writes nothing', async () => {
    const before = await counts();
    expect(await client.errorCode(REGISTER, { input: { name: 'Nope' } })).toBe('UNAUTHORIZED');
    expect(await client.errorCode(REGISTER, { input: { name: 'Nope' } }, asMerchant('mer_x'))).toBe('FORBIDDEN');
    expect(await client.errorCode(REGISTER, { input: { name: 'Nope' } }, { kind: 'tpp', id: 'tpp_x' })).toBe(
      'FORBIDDEN',
    );
    expect(await counts()).toEqual(before);
  });

  it('validates every field and writes nothing for refused input', async () => {
    const before = await counts();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ mode: 'prod' }, 'mode'],
      [{ webhookUrl: 'ftp://hooks.example.com/x' }, 'webhook_url'],
      [{ webhookUrl: 'not a url' }, 'webhook_url'],
      [{ settlementIban: 'LY00002048000020100120361' }, 'settlement_iban'],
      [{ settlementIban: 'hello' }, 'settlement_iban'],
    ];
    for (const [patch, field] of cases) {
      const result = await client.attempt(REGISTER, { input: { name: 'Valid Name', ...patch } }, admin);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(result.errors?.[0]?.extensions?.detail).toMatch(new RegExp(`^${field}: `));
    }
    expect(await counts()).toEqual(before);
  });

  it('lets an operator or the merchant itself read it; another merchant sees MERCHANT_NOT_FOUND', async () => {
    const a = (await register({ name: 'Shop A', webhookUrl: 'https://a.example.com/hooks' })).merchant;
    const b = (await register({ name: 'Shop B' })).merchant;
    expect((await client.execute(READ, { id: a.id }, admin)).merchant).toMatchObject({
      id: a.id,
      name: 'Shop A',
      webhookUrl: 'https://a.example.com/hooks',
    });
    expect((await client.execute(READ, { id: a.id }, asMerchant(a.id))).merchant).toMatchObject({
      id: a.id,
      name: 'Shop A',
    });

    // Same answer as for an id that does not exist: a key cannot probe which merchants exist.
    const foreign = await client.attempt(READ, { id: a.id }, asMerchant(b.id));
    expect(foreign.data).toBeNull();
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'MERCHANT_NOT_FOUND', status: 404 });
    expect(await client.errorCode(READ, { id: 'mer_unknown' }, admin)).toBe('MERCHANT_NOT_FOUND');
    expect(await client.errorCode(READ, { id: a.id })).toBe('INVALID_API_KEY');
    expect(await client.errorCode(READ, { id: a.id }, { kind: 'tpp', id: 'tpp_x' })).toBe('FORBIDDEN');
  });

  it('updates name and webhook URL; an explicit null clears the URL, an omitted field is kept', async () => {
    const { merchant } = await register({ name: 'Before', webhookUrl: 'https://before.example.com/h' });
    const own = asMerchant(merchant.id);
    expect((await client.execute(UPDATE, { id: merchant.id, input: { name: 'After' } }, own)).updateMerchant).toEqual({
      id: merchant.id,
      name: 'After',
      webhookUrl: 'https://before.example.com/h',
    });
    expect(
      (await client.execute(UPDATE, { id: merchant.id, input: { webhookUrl: 'https://after.example.com/h' } }, admin))
        .updateMerchant.webhookUrl,
    ).toBe('https://after.example.com/h');
    expect(
      (await client.execute(UPDATE, { id: merchant.id, input: { webhookUrl: null } }, own)).updateMerchant,
    ).toEqual({ id: merchant.id, name: 'After', webhookUrl: null });
    expect(await merchantRow(merchant.id)).toMatchObject({ name: 'After', webhook_url: null });
  });

  it('refuses an update by another merchant, by nobody, or with invalid fields, and changes nothing', async () => {
    const { merchant } = await register({ name: 'Guarded', webhookUrl: 'https://guarded.example.com/h' });
    const other = (await register({ name: 'Other' })).merchant;
    const before = await merchantRow(merchant.id);
    expect(await client.errorCode(UPDATE, { id: merchant.id, input: { name: 'Hijacked' } }, asMerchant(other.id))).toBe(
      'MERCHANT_NOT_FOUND',
    );
    expect(await client.errorCode(UPDATE, { id: merchant.id, input: { name: 'Hijacked' } })).toBe('INVALID_API_KEY');
    expect(await client.errorCode(UPDATE, { id: 'mer_unknown', input: { name: 'Ghost' } }, admin)).toBe(
      'MERCHANT_NOT_FOUND',
    );
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: null }, 'name'],
      [{ name: 'y'.repeat(101) }, 'name'],
      [{ webhookUrl: 'ftp://guarded.example.com' }, 'webhook_url'],
      [{ webhookUrl: '/relative' }, 'webhook_url'],
    ];
    for (const [input, field] of cases) {
      const result = await client.attempt(UPDATE, { id: merchant.id, input }, admin);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(result.errors?.[0]?.extensions?.detail).toMatch(new RegExp(`^${field}: `));
    }
    expect(await merchantRow(merchant.id)).toEqual(before);
  });

  it('rotates the API key (operator only): the old key is invalid at once', async () => {
    const { apiKey: oldKey, merchant } = await register({ name: 'Rotating', mode: 'live' });
    expect(await client.errorCode(ROTATE_KEY, { id: merchant.id }, asMerchant(merchant.id, 'live'))).toBe('FORBIDDEN');
    expect(await client.errorCode(ROTATE_KEY, { id: merchant.id })).toBe('UNAUTHORIZED');
    expect((await verifyKey(oldKey)).ok).toBe(true);

    const { apiKey: newKey } = (await client.execute(ROTATE_KEY, { id: merchant.id }, admin)).rotateMerchantKey;
    expect(newKey).toMatch(/^mk_live_[0-9A-Za-z]{32}$/);
    expect(await verifyKey(oldKey)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(await verifyKey(newKey)).toMatchObject({ ok: true, credential: { ownerId: merchant.id, scopes: ['live'] } });
    const live = await liveKeys(merchant.id);
    expect(live).toHaveLength(1);
    expect(live[0].hash).toBe(sha256Hex(newKey));
    expect(await client.errorCode(ROTATE_KEY, { id: 'mer_unknown' }, admin)).toBe('MERCHANT_NOT_FOUND');
  });

  it('rotates the webhook secret (operator or the merchant itself): only the new one is kept', async () => {
    const { webhookSecret: first, merchant } = await register({ name: 'Signing' });
    const other = (await register({ name: 'Nosy' })).merchant;
    const sealedSecret = async () =>
      openSealedSecret((await merchantRow(merchant.id)).webhook_secret_sealed, TEST_PLATFORM_SECRET);

    expect(await client.errorCode(ROTATE_SECRET, { id: merchant.id }, asMerchant(other.id))).toBe('MERCHANT_NOT_FOUND');
    expect(await client.errorCode(ROTATE_SECRET, { id: merchant.id })).toBe('INVALID_API_KEY');
    expect(await sealedSecret()).toBe(first);

    const second = (await client.execute(ROTATE_SECRET, { id: merchant.id }, asMerchant(merchant.id)))
      .rotateWebhookSecret.webhookSecret;
    expect(second).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(second).not.toBe(first);
    expect(await sealedSecret()).toBe(second);
    const third = (await client.execute(ROTATE_SECRET, { id: merchant.id }, admin)).rotateWebhookSecret.webhookSecret;
    expect(await sealedSecret()).toBe(third);
    expect(JSON.stringify(await merchantRow(merchant.id))).not.toContain(third);
  });

  it('in production mode requires https webhook URLs to public hosts', async () => {
    const before = await counts();
    const refused: Array<[string, string]> = [
      ['http://hooks.example.com/h', 'webhook_url: must be an https URL'],
      ['https://localhost/h', PRIVATE_ADDRESS],
      ['https://127.0.0.1/h', PRIVATE_ADDRESS],
      ['https://10.1.2.3/h', PRIVATE_ADDRESS],
      ['https://172.20.0.5/h', PRIVATE_ADDRESS],
      ['https://192.168.0.10/h', PRIVATE_ADDRESS],
      ['https://169.254.169.254/latest', PRIVATE_ADDRESS],
      ['https://[::1]/h', PRIVATE_ADDRESS],
      ['https://[fd00::1]/h', PRIVATE_ADDRESS],
    ];
    for (const [webhookUrl, detail] of refused) {
      const result = await productionClient.attempt(REGISTER, { input: { name: 'Prod Shop', webhookUrl } }, admin);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', detail });
    }
    expect(await counts()).toEqual(before);

    const { merchant } = (
      await productionClient.execute(
        REGISTER,
        { input: { name: 'Prod Shop', webhookUrl: 'https://hooks.example.com/h' } },
        admin,
      )
    ).registerMerchant;
    expect(merchant.webhookUrl).toBe('https://hooks.example.com/h');
    const update = await productionClient.attempt(
      UPDATE,
      { id: merchant.id, input: { webhookUrl: 'https://192.168.1.1/h' } },
      asMerchant(merchant.id),
    );
    expect(update.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', detail: PRIVATE_ADDRESS });
    expect((await merchantRow(merchant.id)).webhook_url).toBe('https://hooks.example.com/h');
  });

  it('answers federation: Merchant references, with restricted fields still checked', async () => {
    const { merchant } = await register({ name: 'Referenced', webhookUrl: 'https://ref.example.com/h' });
    const ENTITIES = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Merchant { id name mode } } }`;
    const { _entities } = await client.execute(ENTITIES, {
      r: [
        { __typename: 'Merchant', id: merchant.id },
        { __typename: 'Merchant', id: 'mer_ghost' },
      ],
    });
    expect(_entities).toEqual([{ id: merchant.id, name: 'Referenced', mode: 'test' }, null]);

    const RESTRICTED = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Merchant { webhookUrl } } }`;
    const r = [{ __typename: 'Merchant', id: merchant.id }];
    expect(await client.errorCode(RESTRICTED, { r })).toBe('INVALID_API_KEY');
    expect((await client.execute(RESTRICTED, { r }, asMerchant(merchant.id)))._entities).toEqual([
      { webhookUrl: 'https://ref.example.com/h' },
    ]);
    const { _service } = await client.execute(`{ _service { sdl } }`);
    expect(_service.sdl).toMatch(/type Merchant\s+@key\(fields: "id"\)/);
  });
});
