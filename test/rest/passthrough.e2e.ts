import { startTestPlatform, type TestPlatform } from '../support/platform';
import { call, expectError, expectRateLimitHeaders } from '@gateway/rest-compat/testing';

/** What rest-compat carries between client and router: request ids, rate limits, /graphql, readiness. */
describe('rest-compat in front of the real router', () => {
  let t: TestPlatform;
  let base: string;

  beforeAll(async () => {
    // A small public budget, so the 429 path is reachable in a few calls.
    t = await startTestPlatform({
      rateLimits: { identity_resolve: { points: 3 }, read: { points: 100_000 }, write: { points: 100_000 } },
    });
    base = t.platform.restUrl;
  });
  afterAll(async () => {
    await t.stop();
  });

  it('crosses one request id through the router: the header, the error body and the router agree', async () => {
    const answer = await call(base, 'GET', '/banks/nosuchbank/capabilities', {
      headers: { 'x-request-id': 'req_crossing1' },
    });
    expectError(answer, 404, 'BANK_NOT_REGISTERED');
    expect(answer.body.error.request_id).toBe('req_crossing1');
    expectRateLimitHeaders(answer);

    const generated = await call(base, 'GET', '/banks/nosuchbank/capabilities');
    expect(generated.body.error.request_id).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(generated.headers.get('x-request-id')).toBe(generated.body.error.request_id);
  });

  it("charges an unknown route's 404 like a read: X-RateLimit-* on it, the caller's budget spent (issue 31)", async () => {
    const first = await call(base, 'GET', '/no/such/route');
    expectError(first, 404, 'NOT_FOUND');
    expectRateLimitHeaders(first);
    expect(first.headers.get('x-ratelimit-limit')).toBe('100000');
    const second = await call(base, 'POST', '/no/such/route', { body: {} });
    expectError(second, 404, 'NOT_FOUND');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });

  it('passes X-RateLimit-* through, then 429 RATE_LIMITED with Retry-After; a client-set X-Forwarded-For does not escape the limit', async () => {
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await call(base, 'GET', '/v1/identity/resolve?alias=nobody'));
    for (const answer of answers) {
      expectError(answer, 404, 'ALIAS_NOT_FOUND');
      expect(answer.headers.get('x-ratelimit-limit')).toBe('3');
    }
    expect(answers.map((answer) => answer.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0']);

    const limited = await call(base, 'GET', '/v1/identity/resolve?alias=nobody', {
      headers: { 'x-forwarded-for': '198.51.100.23' },
    });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('proxies /graphql (POST and GET) with the caller credentials and the router headers', async () => {
    const post = await call(base, 'POST', '/graphql', {
      headers: { 'x-service-admin-key': t.adminKey, 'x-request-id': 'req_gqlproxy1' },
      body: {
        query: 'mutation($input: RegisterMerchantInput!) { registerMerchant(input: $input) { merchant { name } } }',
        variables: { input: { name: 'Via GraphQL' } },
      },
    });
    expect([post.status, post.body]).toEqual([
      200,
      { data: { registerMerchant: { merchant: { name: 'Via GraphQL' } } } },
    ]);
    expect(post.headers.get('x-request-id')).toBe('req_gqlproxy1');
    expectRateLimitHeaders(post);

    const refused = await call(base, 'POST', '/graphql', {
      headers: { 'x-service-admin-key': 'wrong-admin-key-000000000000' },
      body: { query: '{ merchant(id: "mer_x") { name } }' },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].extensions.code).toBe('UNAUTHORIZED');

    const query = encodeURIComponent('{ bankCapabilities(handle: "nosuchbank") { obEnabled } }');
    const get = await call(base, 'GET', `/graphql?query=${query}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect(get.status).toBe(200);
    expect(get.body.errors[0].extensions.code).toBe('BANK_NOT_REGISTERED');
  });

  it('is ready when the router is, and counts REST requests on /metrics', async () => {
    const ready = await call(base, 'GET', '/readyz');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready', checks: { router: true } }]);
    const metrics = await call(base, 'GET', '/metrics');
    expect(metrics.text).toMatch(
      /rest_compat_requests_total\{method="GET",route="\/v1\/identity\/resolve",status="429"[^}]*\} 1/,
    );
  });
});
