import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { RunningService } from '@gateway/federation';
import { start as startBanks } from '@gateway/subgraph-banks';
import { getIntrospectionQuery } from 'graphql';
import { composeIBAN } from 'ibantools';
import { hmacSha256Hex, ROUTER_AUDIENCE, signPrincipal, type Principal } from '@gateway/kernel';
import { startRouter, type RunningRouter } from './server';

const SECRET = 'router-test-platform-secret-0123456789';
const ADMIN_KEY = 'adm_router_test_key_0123456789';
const banksSdl = readFileSync(join(__dirname, '..', '..', 'subgraphs', 'banks', 'schema.graphql'), 'utf8');

async function post(
  router: RunningRouter,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const response = await fetch(router.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { data?: any; errors?: any[] },
  };
}

const REGISTER = `mutation($input: RegisterBankInput!) { registerBank(input: $input) { bankKey bank { handle } } }`;
const input = {
  bankHandle: 'edge',
  displayName: 'Edge Bank',
  country: 'LY',
  coreBaseUrl: 'http://127.0.0.1:7999',
  settlementAccountIban: composeIBAN({ countryCode: 'LY', bban: '201001000000000000001' }),
  contactEmail: 'ops@edge.ly',
  institutionCode: '201',
};

describe('router', () => {
  let db: Database;
  let banks: RunningService;
  let router: RunningRouter;

  beforeAll(async () => {
    db = await openTestDatabase();
    // Its bank's core is on loopback (PRIVATE_TARGETS on).
    banks = await startBanks({ db, platformSecret: SECRET, production: false, privateTargets: true });
    router = await startRouter({
      db,
      subgraphs: [{ name: 'banks', url: banks.graphqlUrl, sdl: banksSdl }],
      platformSecret: SECRET,
      adminKey: ADMIN_KEY,
      production: false,
      rateLimits: { read: { points: 5 } },
      maxDepth: 4,
      maxFields: 20,
      subgraphTimeoutMs: 2000,
    });
  });
  afterAll(async () => {
    await router.stop();
    await banks.stop().catch(() => undefined);
    await db.close();
  });

  it('authenticates the admin key and forwards the principal to the subgraph', async () => {
    const ok = await post(router, REGISTER, { input }, { 'x-service-admin-key': ADMIN_KEY });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.registerBank.bankKey).toMatch(/^sbk_edge_/);

    const wrong = await post(router, REGISTER, { input }, { 'x-service-admin-key': `${ADMIN_KEY}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors?.[0].extensions.code).toBe('UNAUTHORIZED');
  });

  it('refuses a bad bank key or merchant key with the spec code, and a rotated key at once', async () => {
    const registered = await post(
      router,
      REGISTER,
      {
        input: {
          ...input,
          bankHandle: 'edge2',
          institutionCode: '202',
          settlementAccountIban: composeIBAN({ countryCode: 'LY', bban: '202001000000000000001' }),
        },
      },
      { 'x-service-admin-key': ADMIN_KEY },
    );
    const oldKey = registered.body.data.registerBank.bankKey as string;
    // A bank rotates its own key (or an operator does for it), never another bank's.
    const { body } = await post(
      router,
      `mutation { rotateBankKey(handle: "edge") { bankKey } }`,
      {},
      { 'x-service-bank-key': oldKey },
    );
    expect(body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const rotated = await post(
      router,
      `mutation { rotateBankKey(handle: "edge2") { bankKey } }`,
      {},
      { 'x-service-bank-key': oldKey },
    );
    const newKey = rotated.body.data.rotateBankKey.bankKey as string;

    const withOld = await post(
      router,
      `{ bank(handle: "edge2") { contactEmail } }`,
      {},
      { 'x-service-bank-key': oldKey },
    );
    expect(withOld.status).toBe(401);
    expect(withOld.body.errors?.[0].extensions.code).toBe('INVALID_BANK_KEY');
    const withNew = await post(
      router,
      `{ bank(handle: "edge2") { contactEmail } }`,
      {},
      { 'x-service-bank-key': newKey },
    );
    expect(withNew.body.data.bank.contactEmail).toBe('ops@edge.ly');

    const merchant = await post(
      router,
      `{ bankCapabilities(handle: "edge") { obEnabled } }`,
      {},
      { authorization: 'Bearer mk_test_nope' },
    );
    expect(merchant.status).toBe(401);
    expect(merchant.body.errors?.[0].extensions.code).toBe('INVALID_API_KEY');
  });

  it('crosses one request id through the response header and the error body', async () => {
    const response = await post(
      router,
      `{ bankCapabilities(handle: "nobody") { obEnabled } }`,
      {},
      { 'x-request-id': 'req_abc123' },
    );
    expect(response.headers.get('x-request-id')).toBe('req_abc123');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.body.errors?.[0].extensions.code).toBe('BANK_NOT_REGISTERED');
  });

  it('refuses documents over the depth or field limit before planning', async () => {
    const deep = await post(
      router,
      `{ bank(handle: "edge") { capabilities { bankHandle } } __schema { types { fields { type { name } } } } }`,
    );
    expect(deep.body.errors?.[0].extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: expect.stringMatching(/depth 5 exceeds the limit of 4/),
    });
    // The message itself says what is wrong: a GraphQL client (GraphiQL) shows only the message.
    expect(deep.body.errors?.[0].message).toMatch(/depth 5 exceeds the limit of 4/);
    const broken = await post(router, `{ bank(handle: "edge") { handle }`);
    expect(broken.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/Syntax Error: Expected Name, found <EOF>/),
      extensions: { code: 'VALIDATION_ERROR' },
    });
    // One root field (one point of `read`), 22 selections under it.
    const wide = await post(
      router,
      `{ bank(handle: "edge") { ${Array.from({ length: 21 }, (_, i) => `a${i}: handle`).join(' ')} } }`,
      {},
      { 'x-forwarded-for': '203.0.113.30' },
    );
    expect(wide.body.errors?.map((e: any) => e.extensions.detail).join(' ')).toMatch(/more than 20 fields/);
  });

  it('answers the standard introspection query outside production (GraphiQL loads its schema), an unknown operation name or a subscription over HTTP with 400', async () => {
    // Depth 15 through TypeRef's ofType chain, over this router's limit of 4: only-introspection documents are not limited.
    const schema = await post(router, getIntrospectionQuery(), {}, { 'x-forwarded-for': '203.0.113.50' });
    expect(schema.status).toBe(200);
    expect(schema.body.data.__schema.queryType.name).toBe('Query');
    const unknown = await fetch(router.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.51' },
      body: JSON.stringify({ query: '{ __typename }', operationName: 'Stale' }),
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).errors[0]).toMatchObject({
      message: 'Unknown operation named "Stale".',
      extensions: { code: 'VALIDATION_ERROR' },
    });
    const overHttp = await post(router, 'subscription { __typename }', {}, { 'x-forwarded-for': '203.0.113.52' });
    expect(overHttp.status).toBe(400);
    expect(overHttp.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/graphql-ws/),
      extensions: { code: 'VALIDATION_ERROR' },
    });
  });

  it('limits requests per credential with X-RateLimit headers and 429 RATE_LIMITED', async () => {
    const key = { 'x-forwarded-for': '203.0.113.9' };
    let last;
    for (let i = 0; i < 6; i += 1)
      last = await post(router, `{ bankCapabilities(handle: "edge") { obEnabled } }`, {}, key);
    expect(last!.status).toBe(429);
    expect(last!.body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('x-ratelimit-limit')).toBe('5');
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    // Another client has its own budget.
    const other = await post(
      router,
      `{ bankCapabilities(handle: "edge") { obEnabled } }`,
      {},
      { 'x-forwarded-for': '203.0.113.10' },
    );
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('charges one point per root field selection, aliases and root fragments included, and refuses an over-budget document whole', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.40' };
    const two = await post(
      router,
      `{ a: bankCapabilities(handle: "edge") { obEnabled } b: bankCapabilities(handle: "edge") { obEnabled } }`,
      {},
      ip,
    );
    expect([two.status, two.headers.get('x-ratelimit-remaining')]).toEqual([200, '3']);
    // Root fields hidden in a fragment spread and an inline fragment cost the same (they ran free before).
    const hidden = await post(
      router,
      `query { ...Caps ... on Query { c: bankCapabilities(handle: "edge") { obEnabled } } } fragment Caps on Query { d: bankCapabilities(handle: "edge") { obEnabled } }`,
      {},
      ip,
    );
    expect([hidden.status, hidden.body.data.c.obEnabled, hidden.headers.get('x-ratelimit-remaining')]).toEqual([
      200,
      false,
      '1',
    ]);
    const tooDear = await post(
      router,
      `{ a: bankCapabilities(handle: "edge") { obEnabled } b: bankCapabilities(handle: "edge") { obEnabled } }`,
      {},
      ip,
    );
    expect(tooDear.status).toBe(429);
    expect(tooDear.body.data).toBeUndefined();
    expect(tooDear.body.errors?.[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      detail: expect.stringMatching(/costs 2 points of the read limit.*1 of 5 left/),
    });
    // Refused whole, it spent nothing: the last point is still there.
    const last = await post(router, `{ bankCapabilities(handle: "edge") { obEnabled } }`, {}, ip);
    expect([last.status, last.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
  });

  it('accepts a self-signed principal only from platform services, outside client rate limits', async () => {
    /** A service client's call: signed for the router and its own request id (kernel's principal.ts). */
    const signed = (principal: Principal, requestId: string, secret = SECRET, audience = ROUTER_AUDIENCE) => ({
      'x-request-id': requestId,
      'x-gateway-principal': signPrincipal(principal, secret, { audience, requestId }),
    });
    const forgedAdmin = await post(router, REGISTER, { input }, signed({ kind: 'admin' }, 'req_forgedadmin'));
    expect(forgedAdmin.status).toBe(401);
    expect(forgedAdmin.body.errors?.[0].extensions.code).toBe('UNAUTHORIZED');
    const wrongSecret = await post(
      router,
      `{ bankCapabilities(handle: "edge") { obEnabled } }`,
      {},
      signed({ kind: 'service', id: 'payments' }, 'req_wrongsecret', 'not-the-platform-secret'),
    );
    expect(wrongSecret.status).toBe(401);
    for (let i = 0; i < 7; i += 1) {
      const service = {
        ...signed({ kind: 'service', id: 'payments' }, `req_service${i}`),
        'x-forwarded-for': '203.0.113.12',
      };
      const answer = await post(router, `{ bankCapabilities(handle: "edge") { obEnabled } }`, {}, service);
      expect([answer.status, answer.body.errors]).toEqual([200, undefined]);
    }
  });

  it('refuses at the edge a service principal signed for a subgraph, for another request, or sent again (issue 46)', async () => {
    const query = `{ bankCapabilities(handle: "edge") { obEnabled } }`;
    const service: Principal = { kind: 'service', id: 'payments' };
    const refused = async (headers: Record<string, string>, detail: string) => {
      const answer = await post(router, query, {}, headers);
      expect([answer.status, answer.body.data]).toEqual([401, undefined]);
      expect(answer.body.errors?.[0].extensions).toMatchObject({ code: 'UNAUTHORIZED', detail });
    };
    // What the router itself sends the banks subgraph for a service's call: good there, never here.
    const hop = signPrincipal({ ...service, ip: '127.0.0.1' }, SECRET, { audience: 'banks', requestId: 'req_hop1' });
    await refused(
      { 'x-request-id': 'req_hop1', 'x-gateway-principal': hop },
      'forwarded principal was signed for another service',
    );
    const other = signPrincipal(service, SECRET, { audience: ROUTER_AUDIENCE, requestId: 'req_mine1' });
    await refused(
      { 'x-request-id': 'req_theirs1', 'x-gateway-principal': other },
      'forwarded principal was signed for another request',
    );
    const once = {
      'x-request-id': 'req_once1',
      'x-gateway-principal': signPrincipal(service, SECRET, { audience: ROUTER_AUDIENCE, requestId: 'req_once1' }),
    };
    expect((await post(router, query, {}, once)).status).toBe(200);
    await refused(once, 'forwarded principal was already used');
    // The audience-free format of before, HMAC and all: refused.
    const payload = Buffer.from(JSON.stringify({ ...service, iat: Date.now() })).toString('base64url');
    await refused(
      { 'x-request-id': 'req_before1', 'x-gateway-principal': `${payload}.${hmacSha256Hex(SECRET, payload)}` },
      'forwarded principal has a bad signature',
    );
  });

  it('in production mode refuses introspection and never sends a stack trace', async () => {
    const production = await startRouter({
      db,
      subgraphs: [{ name: 'banks', url: banks.graphqlUrl, sdl: banksSdl }],
      platformSecret: SECRET,
      adminKey: ADMIN_KEY,
      production: true,
    });
    try {
      const introspection = await post(
        production,
        `{ __schema { queryType { name } } }`,
        {},
        { 'x-forwarded-for': '203.0.113.20' },
      );
      expect(introspection.body.data).toBeUndefined();
      expect(introspection.body.errors?.[0].extensions.code).toBe('VALIDATION_ERROR');
      expect(introspection.body.errors?.[0].extensions.detail).toMatch(/introspection/i);
      // No "Did you mean …": a misspelt field must not reveal the schema introspection hides.
      const misspelt = await post(
        production,
        `{ bankCapabilitie(handle: "edge") { obEnable } }`,
        {},
        { 'x-forwarded-for': '203.0.113.23' },
      );
      expect(misspelt.body.errors?.[0].extensions.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(misspelt.body)).not.toMatch(/did you mean|bankCapabilities/i);
      const suggested = await post(
        router,
        `{ bankCapabilitie(handle: "edge") { obEnable } }`,
        {},
        { 'x-forwarded-for': '203.0.113.24' },
      );
      expect(suggested.body.errors?.[0].extensions.detail).toMatch(/Did you mean "bankCapabilities"/);
      // graphql-armor's alias cap (30 by default) answers 400 VALIDATION_ERROR.
      const admin = { 'x-service-admin-key': ADMIN_KEY };
      const aliased = (n: number) =>
        post(
          production,
          `{ bank(handle: "edge") { ${Array.from({ length: n }, (_, i) => `a${i}: handle`).join(' ')} } }`,
          {},
          admin,
        );
      expect((await aliased(30)).body.data.bank.a29).toBe('edge');
      const many = await aliased(31);
      expect(many.status).toBe(400);
      expect(many.body.errors?.[0].extensions).toMatchObject({
        code: 'VALIDATION_ERROR',
        detail: expect.stringMatching(/Aliases limit of 30 exceeded, found 31/),
      });
      // And a document over 5,000 tokens is not parsed to the end, at the edge or in Apollo.
      const huge = await post(production, `{ bank(handle: "edge") { ${'handle '.repeat(5000)}} }`, {}, admin);
      expect(huge.status).toBe(400);
      expect(huge.body.errors?.[0].extensions).toMatchObject({
        code: 'VALIDATION_ERROR',
        detail: expect.stringMatching(/token/i),
      });
      const failed = await post(
        production,
        `{ bankCapabilities(handle: "nobody") { obEnabled } }`,
        {},
        { 'x-forwarded-for': '203.0.113.21' },
      );
      expect(failed.body.errors?.[0].extensions.code).toBe('BANK_NOT_REGISTERED');
      expect(JSON.stringify(failed.body)).not.toMatch(/stacktrace|at .*\.ts:\d+/i);
      // No GraphiQL in production (nor Apollo's CDN landing page): a browser's GET gets no HTML page, no assets.
      const browser = await fetch(production.graphqlUrl, {
        headers: { accept: 'text/html', 'x-forwarded-for': '203.0.113.25' },
      });
      expect(browser.headers.get('content-type')).not.toMatch(/text\/html/);
      expect(await browser.text()).not.toMatch(/graphiql|<html/i);
      const devPage = await (
        await fetch(router.graphqlUrl, { headers: { accept: 'text/html', 'x-forwarded-for': '203.0.113.26' } })
      ).text();
      const asset = devPage.match(/src="(\/graphiql\/assets\/[^"]+)"/)![1]!;
      expect((await fetch(`${production.url}${asset}`)).status).toBe(404);
      const development = await post(
        router,
        `{ __schema { queryType { name } } }`,
        {},
        { 'x-forwarded-for': '203.0.113.22' },
      );
      expect(development.body.data.__schema.queryType.name).toBe('Query');
    } finally {
      await production.stop();
    }
  });

  it("answers an operation one subgraph answers whole past the gateway, with the gateway's answer", async () => {
    const forwardedCount = async () =>
      Number(
        (await (await fetch(`${router.url}/metrics`)).text()).match(
          /router_forwarded_total\{[^}]*subgraph="banks"[^}]*\} (\d+)/,
        )?.[1] ?? 0,
      );
    const query = 'query($handle: String!) { bank(handle: $handle) { handle displayName country } }';
    const headers = { 'x-service-admin-key': ADMIN_KEY, 'x-forwarded-for': '203.0.113.31' };
    for (const handle of ['edge', 'nobody']) {
      const before = await forwardedCount();
      const forwarded = await post(router, query, { handle }, headers);
      expect(await forwardedCount()).toBe(before + 1);
      // Asking for graphql-response+json leaves the request to Apollo and the gateway's plan.
      const planned = await post(
        router,
        query,
        { handle },
        { ...headers, accept: 'application/graphql-response+json' },
      );
      expect(await forwardedCount()).toBe(before + 1);
      expect(forwarded.status).toBe(planned.status);
      expect(forwarded.body).toEqual(planned.body);
      expect(forwarded.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('serves Prometheus metrics', async () => {
    const metrics = await (await fetch(`${router.url}/metrics`)).text();
    expect(metrics).toMatch(/router_requests_total\{.*outcome="accepted".*\} \d+/);
  });

  it('answers 503 SERVICE_UNAVAILABLE and fails /readyz when a subgraph is down', async () => {
    expect((await fetch(`${router.url}/readyz`)).status).toBe(200);
    await banks.stop();
    const down = await post(
      router,
      `mutation { rotateBankKey(handle: "edge") { bankKey } }`,
      {},
      { 'x-service-admin-key': ADMIN_KEY, 'x-forwarded-for': '203.0.113.11' },
    );
    expect(down.body.errors?.[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    const ready = await fetch(`${router.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).checks.banks).toBe(false);
  });
});
