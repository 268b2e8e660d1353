import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import { testNamespace } from '@gateway/events/testing';
import { gql } from '../support/graphql';
import { startMinimalBank, type MinimalBank } from '../support/minimal-bank';
import { bearer } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe, type SubscriptionRecord } from '../support/subscriptions';

const SESSION_UPDATES = `subscription Updates($id: ID!) { paymentSessionUpdated(id: $id) { id status } }`;
/** API-CONTRACT "Operator controls": a revoked credential's open subscriptions close within 5 s. */
const CONTRACT_MS = 5_000;
/** The one prefix of every admin key the platform generates: `adm_` and 32 base62 characters. */
const ADMIN_KEY_SHAPE = /^adm_[0-9A-Za-z]{32}$/;

/**
 * Issue 46, finding 4: a named admin key records the key that created it, and revoking a key
 * revokes every key it created (and theirs) at once; names are plain ASCII and never pose as
 * ADMIN_KEY; every admin key carries one prefix that secret scanners can recognise.
 */
describe('admin keys: lineage, names and one prefix', () => {
  let t: TestPlatform;
  let bank: MinimalBank;
  let root: Record<string, string>;
  const open: SubscriptionRecord[] = [];
  const audit = (where: Record<string, unknown>) => t.platform.db.knex('audit.entries').where(where).orderBy('at');
  const createKey = async (name: string, by: Record<string, string>) => {
    const created = await t.rest('POST', '/admin/keys', { headers: by, body: { name } });
    expect(created.status).toBe(201);
    return created.body as { admin_key_id: string; admin_key: string; name: string; created_by: string };
  };

  beforeAll(async () => {
    t = await startTestPlatform({ busNamespace: testNamespace() });
    bank = await startMinimalBank(t);
    root = { 'x-service-admin-key': t.adminKey };
  });
  afterEach(async () => {
    for (const record of open.splice(0)) await record.dispose();
  });
  afterAll(async () => {
    await bank.core.stop();
    await t.stop();
  });

  it("the backdoor probe: revoking op-eve revokes op-eve-backdoor at once, audited; the backdoor's next request is 401 and its socket closes within 5 s", async () => {
    const eve = await createKey('op-eve', root);
    expect(eve).toMatchObject({ admin_key: expect.stringMatching(ADMIN_KEY_SHAPE), created_by: 'ADMIN_KEY' });
    const backdoor = await createKey('op-eve-backdoor', { 'x-service-admin-key': eve.admin_key });
    expect(backdoor.created_by).toBe(eve.admin_key_id);
    const backdoorKey = { 'x-service-admin-key': backdoor.admin_key };

    // The backdoor in use: a REST call, and an open subscription on a payment session.
    expect((await t.rest('GET', '/admin/keys', { headers: backdoorKey })).status).toBe(200);
    const merchant = await t.seed.createMerchant();
    const payee = await bank.customer({ balance: 0 });
    const session = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 700, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect(session.status).toBe(201);
    const socket = subscribe(t.platform.graphqlUrl, { adminKey: backdoor.admin_key }, SESSION_UPDATES, {
      id: session.body.session_id,
    });
    open.push(socket);
    await socket.waitForMessages(1, 'the current state, for the backdoor key');
    expect(socket.messages[0]!.data.paymentSessionUpdated.status).toBe('PENDING');

    // The operator revokes op-eve only; the answer says what went with it.
    const revokedAt = Date.now();
    const revoked = await t.rest('DELETE', `/admin/keys/${eve.admin_key_id}`, { headers: root });
    expect(revoked.status).toBe(200);
    expect(responseSchemaOf('DELETE', '/admin/keys/{id}').safeParse(revoked.body).error).toBeUndefined();
    expect(revoked.body).toMatchObject({ admin_key_id: eve.admin_key_id, revoked_at: expect.any(String) });
    expect(revoked.body.revoked_with).toEqual([
      {
        admin_key_id: backdoor.admin_key_id,
        name: 'op-eve-backdoor',
        created_at: expect.any(String),
        revoked_at: revoked.body.revoked_at,
        created_by: eve.admin_key_id,
      },
    ]);

    // The backdoor's next request: 401 on REST and on GraphQL; its socket closed (4403) within 5 s.
    expectError(await call(t.platform.restUrl, 'GET', '/admin/keys', { headers: backdoorKey }), 401, 'UNAUTHORIZED');
    const refused = await t.executeExpectingErrors(gql<unknown>('{ adminKeys { id } }'), {}, backdoorKey);
    expect([refused.status, refused.errors[0]?.extensions?.code]).toEqual([401, 'UNAUTHORIZED']);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([socket.ended, new Promise((resolve) => (timer = setTimeout(resolve, CONTRACT_MS + 1_000)))]);
    clearTimeout(timer);
    expect(socket.closeCode).toBe(4403);
    expect(Date.now() - revokedAt).toBeLessThan(CONTRACT_MS);

    // Audited, each revocation its own entry, in the request that revoked op-eve.
    const requestId = revoked.headers.get('x-request-id');
    expect(await audit({ action: 'admin_key.revoked', target: backdoor.admin_key_id })).toEqual([
      expect.objectContaining({
        actor_name: 'ADMIN_KEY',
        request_id: requestId,
        changes: expect.objectContaining({ revoked_with: { to: eve.admin_key_id } }),
      }),
    ]);
    expect(await audit({ action: 'admin_key.revoked', target: eve.admin_key_id })).toHaveLength(1);
    // Listed with its lineage; the first key stays untouched.
    const listed = (await t.rest('GET', '/admin/keys', { headers: root })).body.admin_keys as Array<
      Record<string, unknown>
    >;
    expect(listed.find((key) => key.admin_key_id === backdoor.admin_key_id)).toMatchObject({
      created_by: eve.admin_key_id,
      revoked_at: expect.any(String),
    });
  });

  it('the look-alike probe: a name with a Cyrillic Е posing as ADMIN_KEY is 400 VALIDATION_ERROR naming name, and nothing is written', async () => {
    const before = await t.platform.db.knex('auth.credentials').where({ kind: 'admin_key' }).count({ n: '*' });
    for (const name of ['ADMIN_K\u0415Y', 'admin_key', 'Admin-Key', 'ops eve', 'ab', 'x'.repeat(41), 'ALICE']) {
      const answer = await call(t.platform.restUrl, 'POST', '/admin/keys', { headers: root, body: { name } });
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect([name, answer.body.error.detail]).toEqual([name, expect.stringMatching(/^name: /)]);
    }
    const after = await t.platform.db.knex('auth.credentials').where({ kind: 'admin_key' }).count({ n: '*' });
    expect(after).toEqual(before);
    expect(await audit({ action: 'admin_key.created', actor_name: 'ADMIN_K\u0415Y' })).toEqual([]);
  });

  it('one prefix for every admin key: the generated first key and each named key are adm_…', async () => {
    expect(t.adminKey).toMatch(ADMIN_KEY_SHAPE);
    expect((await createKey('scanner-check', root)).admin_key).toMatch(ADMIN_KEY_SHAPE);
  });
});
