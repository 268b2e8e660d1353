import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Issue 28, item 5: `alias(handle)` is public and answers the alias's IBAN, so it is a look-up in
 * the directory like resolveAlias: it spends the identity-resolution budget (per client address),
 * not `read`. Through rest-compat's /graphql, as a client from one address.
 */
describe('alias(handle) under the identity-resolution limit', () => {
  let t: TestPlatform;
  let alias: { handle: string; iban: string };

  const graphql = async (query: string) => {
    const response = await fetch(`${t.platform.restUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as { data?: any; errors?: any[] },
    };
  };

  beforeAll(async () => {
    // A small resolution budget, a large read one: a look-up charged to read would never be refused here.
    t = await startTestPlatform({ rateLimits: { identity_resolve: { points: 3 }, read: { points: 100_000 } } });
    const bank = await t.seed.registerBank();
    alias = await t.seed.claimAlias(bank);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('charges each alias(handle) one identity_resolve point, shared with REST resolution, and refuses past the limit', async () => {
    const first = await graphql(`{ alias(handle: "${alias.handle}") { iban } }`);
    expect(first.status).toBe(200);
    expect(first.body.data.alias.iban).toBe(alias.iban);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');

    const rest = await t.rest('GET', `/v1/identity/resolve?alias=${alias.handle}`);
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await graphql(`{ alias(handle: "${alias.handle}") { handle } }`)).status).toBe(200);

    const refused = await graphql(`{ alias(handle: "${alias.handle}") { iban } }`);
    expect(refused.status).toBe(429);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    // A plain read of the same caller still has its own budget.
    expect((await graphql('{ authorizationServerMetadata { issuer } }')).status).toBe(200);
  });
});
