import { startTestPlatform, type TestPlatform } from '../support/platform';

const CURRENT = JSON.stringify({ query: '{ currentOperator { name keyId consoleSession } }' });
const SUSPEND = (id: string) =>
  JSON.stringify({ query: `mutation { suspendMerchant(id: "${id}", reason: "test") { id status } }` });

/**
 * The operator console's sign-in (issue 50) over HTTP: an admin key is exchanged for an HttpOnly,
 * SameSite=Strict session cookie kept by the gateway as a hash only; /operator/graphql accepts that
 * cookie from the console's own origin; signing out, or revoking the key, ends it.
 */
describe('operator console session', () => {
  let t: TestPlatform;
  let base: string;

  const signIn = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/operator/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, ...headers },
      body: JSON.stringify(body),
    });
  const cookieOf = (response: Response) =>
    /^gateway_operator=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const consoleGraphql = async (body: string, headers: Record<string, string>) => {
    const response = await fetch(`${base}/operator/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        data?: any;
        errors?: Array<{ message: string; extensions: { code: string } }>;
      },
    };
  };
  const codeOf = (answer: { status: number; body: { errors?: Array<{ extensions: { code: string } }> } }) => ({
    status: answer.status,
    code: answer.body.errors?.[0]?.extensions.code,
  });
  const namedKey = async (name: string) => {
    const made = await t.rest<{ admin_key_id: string; admin_key: string }>('POST', '/admin/keys', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { name },
    });
    expect(made.status).toBe(201);
    return { id: made.body.admin_key_id, key: made.body.admin_key };
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
  });
  afterAll(async () => {
    await t.stop();
  });

  it('exchanges an admin key for an HttpOnly, SameSite=Strict cookie of 8 hours, stored as its hash only', async () => {
    const answer = await signIn({ admin_key: t.adminKey });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ name: 'ADMIN_KEY', expires_at: expect.any(String) });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    // Over plain http no Secure (the https and production cases: operator-session.spec.ts).
    expect(answer.headers.get('set-cookie')).toMatch(
      /^gateway_operator=ocs_\w+; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const token = cookieOf(answer);
    const stored = await t.platform.db.knex('auth.credentials').where({ kind: 'operator_session' });
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.map((row: { hash: string }) => row.hash)).not.toContain(token);
    const current = await consoleGraphql(CURRENT, { cookie: `gateway_operator=${token}`, origin: base });
    expect(current.body.data).toEqual({ currentOperator: { name: 'ADMIN_KEY', keyId: null, consoleSession: true } });
  });

  it('refuses a bad key (401), a missing one (400) and another origin, or none (403)', async () => {
    const bad = await signIn({ admin_key: 'adm_not_a_key' });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    expect(bad.headers.get('set-cookie')).toBeNull();
    expect((await signIn({})).status).toBe(400);
    const foreign = await signIn({ admin_key: t.adminKey }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBeNull();
    const none = await fetch(`${base}/operator/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ admin_key: t.adminKey }),
    });
    expect(none.status).toBe(403);
  });

  it('runs the console GraphQL by the cookie from its own origin only; a session cannot start another', async () => {
    const token = cookieOf(await signIn({ admin_key: t.adminKey }));
    const cookie = `gateway_operator=${token}`;
    const merchant = await t.seed.createMerchant({ name: 'Origin Shop', mode: 'test' });
    for (const origin of [{ origin: 'https://evil.example' }, {}] as Array<Record<string, string>>)
      expect(codeOf(await consoleGraphql(SUSPEND(merchant.merchantId), { cookie, ...origin }))).toEqual({
        status: 403,
        code: 'FORBIDDEN',
      });
    // Nothing was done by the refused requests.
    const record = await t.rest<{ status: string }>('GET', `/merchants/${merchant.merchantId}`, {
      headers: { 'x-service-admin-key': t.adminKey },
    });
    expect(record.body.status).toBe('ACTIVE');
    // Without the cookie, a key sent by the page is no credential here.
    expect(codeOf(await consoleGraphql(CURRENT, { origin: base, 'x-service-admin-key': t.adminKey }))).toEqual({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    // The session as a bearer token cannot mint the next one.
    const again = await t.rest('POST', '/graphql', {
      headers: { authorization: `Bearer ${token}` },
      body: { query: 'mutation { startOperatorSession { token } }' },
    });
    expect(again.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
  });

  it('names the operator of a named key in the audit log; signing out ends the session', async () => {
    const alice = await namedKey('console-alice');
    const answer = await signIn({ admin_key: alice.key });
    expect(await answer.json()).toEqual({ name: 'console-alice', expires_at: expect.any(String) });
    const cookie = `gateway_operator=${cookieOf(answer)}`;
    const merchant = await t.seed.createMerchant({ name: 'Audit Shop', mode: 'test' });
    const suspended = await consoleGraphql(SUSPEND(merchant.merchantId), { cookie, origin: base });
    expect(suspended.body.data).toEqual({ suspendMerchant: { id: merchant.merchantId, status: 'SUSPENDED' } });
    const audit = await t.rest<{ entries: Array<{ actor: { kind: string; name?: string; id?: string } }> }>(
      'GET',
      `/admin/audit?action=merchant.suspended&target=${merchant.merchantId}`,
      { headers: { 'x-service-admin-key': t.adminKey } },
    );
    expect(audit.body.entries.map((entry) => entry.actor)).toEqual([
      expect.objectContaining({ kind: 'admin', name: 'console-alice', id: alice.id }),
    ]);

    const out = await fetch(`${base}/operator/session`, { method: 'DELETE', headers: { cookie, origin: base } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^gateway_operator=; Max-Age=0;/);
    expect(codeOf(await consoleGraphql(CURRENT, { cookie, origin: base }))).toEqual({
      status: 401,
      code: 'UNAUTHORIZED',
    });
  });

  it('ends the console sessions of a revoked key (and of the keys it made) at their next request; a revoked key cannot sign in', async () => {
    const bob = await namedKey('console-bob');
    const cookie = `gateway_operator=${cookieOf(await signIn({ admin_key: bob.key }))}`;
    const made = await t.rest<{ admin_key: string }>('POST', '/admin/keys', {
      headers: { 'x-service-admin-key': bob.key },
      body: { name: 'console-bob-junior' },
    });
    const juniorCookie = `gateway_operator=${cookieOf(await signIn({ admin_key: made.body.admin_key }))}`;
    expect((await consoleGraphql(CURRENT, { cookie, origin: base })).body.data.currentOperator.name).toBe(
      'console-bob',
    );

    const revoked = await t.rest('DELETE', `/admin/keys/${bob.id}`, { headers: { 'x-service-admin-key': t.adminKey } });
    expect(revoked.status).toBe(200);
    for (const session of [cookie, juniorCookie])
      expect(codeOf(await consoleGraphql(CURRENT, { cookie: session, origin: base }))).toEqual({
        status: 401,
        code: 'UNAUTHORIZED',
      });
    const again = await signIn({ admin_key: bob.key });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
  });
});
