import { callGraphQL, framedHttp, newId, PRINCIPAL_HEADER, signPrincipal, type LocalRequest } from '@gateway/kernel';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/**
 * Issue 28, item 7: a subgraph answers only what the router (or a platform service) signed, on
 * loopback unless told otherwise, and every /metrics asks for METRICS_TOKEN once it is set. The
 * public services listen on another loopback address (HOST=127.0.0.2) so the two can be told apart.
 */
describe('the services behind the router, and /metrics', () => {
  let t: TestPlatform;
  const base = (graphqlUrl: string) => graphqlUrl.replace(/\/graphql$/, '');
  /** The headers of a hop as the router signs it: for subgraph `name` and a request id of its own. */
  const signedFor = (name: string, secret = t.platform.platformSecret) => {
    const requestId = newId('request');
    return {
      'x-request-id': requestId,
      [PRINCIPAL_HEADER]: signPrincipal({ kind: 'anonymous', ip: '127.0.0.1' }, secret, { audience: name, requestId }),
    };
  };
  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: '{ __typename }' }),
    });

  beforeAll(async () => {
    t = await startTestPlatform({ env: { HOST: '127.0.0.2', METRICS_TOKEN } });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('keeps the subgraphs on loopback while HOST moves the public services', () => {
    expect(new URL(t.platform.restUrl).hostname).toBe('127.0.0.2');
    expect(new URL(t.platform.graphqlUrl).hostname).toBe('127.0.0.2');
    expect(Object.values(t.platform.subgraphUrls).map((url) => new URL(url).hostname)).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      '127.0.0.1',
      '127.0.0.1',
    ]);
  });

  it('refuses an unsigned or forged request to every subgraph with 401, serves a signed one, and leaves health open', async () => {
    const forged = `${Buffer.from(JSON.stringify({ kind: 'admin', iat: Date.now() })).toString('base64url')}.${'0'.repeat(64)}`;
    for (const [name, url] of Object.entries(t.platform.subgraphUrls)) {
      // Issue 46: a principal signed for another subgraph (a hop seen elsewhere) or another request is refused too.
      const other = name === 'banks' ? 'identity' : 'banks';
      const unsigned: Array<Record<string, string>> = [
        {},
        { [PRINCIPAL_HEADER]: forged },
        { [PRINCIPAL_HEADER]: signedFor(name, 'another-platform-secret-0123456789')[PRINCIPAL_HEADER] },
        { [PRINCIPAL_HEADER]: signedFor(other)[PRINCIPAL_HEADER] },
        { [PRINCIPAL_HEADER]: signedFor(name)[PRINCIPAL_HEADER] },
      ];
      for (const headers of unsigned) {
        const refused = await post(url, { ...headers, 'x-request-id': 'req_probe' });
        expect({ name, status: refused.status }).toEqual({ name, status: 401 });
        expect(await refused.json()).toEqual({
          errors: [
            {
              message: expect.any(String),
              extensions: { code: 'UNAUTHORIZED', status: 401, detail: expect.any(String), requestId: 'req_probe' },
            },
          ],
        });
      }
      // GET /graphql (Apollo's GET queries) and other paths are refused the same way.
      expect((await fetch(`${url}?query=%7B__typename%7D`)).status).toBe(401);

      const served = await post(url, signedFor(name));
      expect({ name, status: served.status }).toEqual({ name, status: 200 });
      expect(await served.json()).toEqual({ data: { __typename: 'Query' } });

      expect((await fetch(`${base(url)}/healthz`)).status).toBe(200);
      expect((await fetch(`${base(url)}/readyz`)).status).toBe(200);
    }
  });

  it('refuses an unsigned call made in this process too (the in-process transport)', async () => {
    const answer = await callGraphQL(
      t.platform.subgraphUrls.identity!,
      { headers: {}, body: { query: '{ __typename }' }, ip: '127.0.0.1' },
      { timeoutMs: 5000, failure: () => new Error('no answer') },
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('UNAUTHORIZED');
  });

  it('refuses an unsigned or forged frame on every subgraph too (the framed channel other processes use), and serves a signed one', async () => {
    const framed = framedHttp(() => Promise.reject(new Error('sent over HTTP, not framed')), { connections: 1 });
    const frame = async (url: string, headers: Record<string, string>) => {
      const request: LocalRequest = { headers, body: { query: '{ __typename }' }, ip: '127.0.0.1' };
      // The first call opens the channel (and is sent over HTTP: refused here).
      for (let tries = 0; tries < 200; tries += 1) {
        const answer = await framed(url, request, 5000).catch(() => undefined);
        if (answer) return answer;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`${url} did not open the framed channel`);
    };
    const forged = `${Buffer.from(JSON.stringify({ kind: 'admin', iat: Date.now() })).toString('base64url')}.${'0'.repeat(64)}`;
    for (const [name, url] of Object.entries(t.platform.subgraphUrls)) {
      for (const headers of [{}, { [PRINCIPAL_HEADER]: forged }] as Array<Record<string, string>>) {
        const refused = await frame(url, { ...headers, 'x-request-id': 'req_probe' });
        expect({ name, status: refused.status }).toEqual({ name, status: 401 });
        expect(JSON.parse(refused.body).errors[0].extensions).toMatchObject({
          code: 'UNAUTHORIZED',
          requestId: 'req_probe',
        });
      }
      const served = await frame(url, signedFor(name));
      expect({ name, status: served.status }).toEqual({ name, status: 200 });
      expect(JSON.parse(served.body)).toEqual({ data: { __typename: 'Query' } });
    }
  });

  it('still serves clients through the router and rest-compat, which sign every hop', async () => {
    expect(await t.execute('{ authorizationServerMetadata { issuer } }')).toMatchObject({
      authorizationServerMetadata: { issuer: expect.any(String) },
    });
    const bank = await t.seed.registerBank();
    const alias = await t.seed.claimAlias(bank);
    const resolved = await t.rest('GET', `/v1/identity/resolve?alias=${alias.handle}`);
    expect(resolved.status).toBe(200);
    expect(resolved.body.iban).toBe(alias.iban);
  });

  it('answers /metrics on every port only to a bearer of METRICS_TOKEN, in the spec error body otherwise', async () => {
    const endpoints = [t.platform.restUrl, t.platform.routerUrl, ...Object.values(t.platform.subgraphUrls).map(base)];
    for (const endpoint of endpoints) {
      for (const authorization of [undefined, 'Bearer not-the-token-0123456789abcdef']) {
        const refused = await fetch(`${endpoint}/metrics`, { headers: authorization ? { authorization } : {} });
        expect({ endpoint, status: refused.status }).toEqual({ endpoint, status: 401 });
        expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
        expect(await refused.json()).toEqual({
          error: {
            code: 'UNAUTHORIZED',
            message: expect.any(String),
            detail: expect.any(String),
            request_id: expect.stringMatching(/^req_/),
          },
        });
      }
      const scraped = await fetch(`${endpoint}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect({ endpoint, status: scraped.status }).toEqual({ endpoint, status: 200 });
      expect(await scraped.text()).toMatch(/^process_cpu_user_seconds_total /m);
    }
  });

  it('says on the start page that /metrics needs the token', async () => {
    const page = await (await fetch(`${t.platform.restUrl}/`)).text();
    expect(page).toContain(
      '/metrics</a> — Prometheus metrics (with the header Authorization: Bearer &lt;METRICS_TOKEN&gt;)',
    );
  });
});
