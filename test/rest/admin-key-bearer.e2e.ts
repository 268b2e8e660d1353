import { randomToken } from '@gateway/kernel';
import { bearer } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const HINT = 'this is an admin key: send it as X-Service-Admin-Key, not as Authorization: Bearer';

/**
 * An admin key sent as a Bearer token (issue 47, a first-hour slip): the 401 INVALID_API_KEY says
 * which header it belongs in, on REST and on the router's /graphql alike. Only a key that is one
 * gets the hint; any other value, an admin key's lookalike included, gets the plain refusal.
 * The router and rest-compat answer /favicon.ico too.
 */
describe('an admin key sent as a Bearer token', () => {
  let t: TestPlatform;
  let named: string;

  /** The refusal of GET /payments/sessions on REST, and of a query on the router's /graphql, with this bearer value. */
  const refusals = async (token: string) => {
    const rest = await t.rest('GET', '/payments/sessions', { headers: bearer(token) });
    const graphql = await fetch(`${t.platform.graphqlUrl}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify({ query: '{ currentMerchant { id } }' }),
    });
    const answer = (await graphql.json()) as { errors: Array<{ extensions: { code: string; detail: string } }> };
    return {
      rest: { status: rest.status, code: rest.body.error.code, detail: rest.body.error.detail },
      graphql: { status: graphql.status, ...answer.errors[0]!.extensions },
    };
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    const created = await t.rest('POST', '/admin/keys', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { name: 'on-call' },
    });
    expect(created.status).toBe(201);
    named = created.body.admin_key as string;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it.each([
    ['the configured admin key', () => t.adminKey],
    ['a named admin key', () => named],
  ])('%s: 401 INVALID_API_KEY naming X-Service-Admin-Key, on REST and GraphQL', async (_name, key) => {
    const refused = await refusals(key());
    expect(refused.rest).toEqual({ status: 401, code: 'INVALID_API_KEY', detail: HINT });
    expect(refused.graphql).toMatchObject({ status: 401, code: 'INVALID_API_KEY', detail: HINT });
    // The same key in its own header works.
    const listed = await t.rest('GET', '/admin/keys', { headers: { 'x-service-admin-key': key() } });
    expect(listed.status).toBe(200);
  });

  it.each([
    ['an unknown key with the admin prefix', () => `adm_${randomToken(32)}`],
    ['an unknown merchant key', () => `mk_test_${randomToken(32)}`],
    ['a word', () => 'password'],
  ])('%s: the plain refusal, which says nothing about the value', async (_name, value) => {
    const refused = await refusals(value());
    expect(refused.rest).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    expect(refused.rest.detail).not.toMatch(/admin/i);
    expect(refused.graphql).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    expect(refused.graphql.detail).not.toMatch(/admin/i);
  });

  it('a revoked named admin key gets no hint', async () => {
    const created = await t.rest('POST', '/admin/keys', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { name: 'leaver' },
    });
    const revoked = await t.rest('DELETE', `/admin/keys/${created.body.admin_key_id}`, {
      headers: { 'x-service-admin-key': t.adminKey },
    });
    expect(revoked.status).toBe(200);
    expect((await refusals(created.body.admin_key as string)).rest.detail).not.toMatch(/admin/i);
  });

  it.each([
    ['rest-compat', () => t.platform.restUrl],
    ['the router', () => t.platform.routerUrl],
  ])('%s answers /favicon.ico with an icon, cached', async (_name, base) => {
    const answer = await fetch(`${base()}/favicon.ico`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/x-icon');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=86400');
    expect([...new Uint8Array(await answer.arrayBuffer()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
  });
});
