import { WebSocket } from 'ws';
import { bearer } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CURRENT = JSON.stringify({ query: '{ currentMerchant { id } }' });
const ROTATE_SECRET = (id: string) =>
  JSON.stringify({ query: `mutation { rotateWebhookSecret(id: "${id}") { webhookSecret } }` });

/**
 * The dashboard's sign-in (issue 28, item 8) over HTTP: the merchant key is exchanged for an
 * HttpOnly, SameSite=Strict session cookie kept by the gateway as a hash only; /graphql accepts
 * that cookie from the dashboard's own origin, and signing out (or rotating the key) ends it.
 */
describe('dashboard session cookie', () => {
  let t: TestPlatform;
  let base: string;
  let merchant: { merchantId: string; apiKey: string };

  const signIn = (headers: Record<string, string>) => fetch(`${base}/dashboard/session`, { method: 'POST', headers });
  const cookieOf = (response: Response) =>
    /^gateway_dashboard=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const graphql = async (body: string, headers: Record<string, string>) => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return {
      status: response.status,
      body: (await response.json()) as { data?: any; errors?: Array<{ extensions: { code: string } }> },
    };
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    merchant = await t.seed.createMerchant({ name: 'Cookie Shop', mode: 'test' });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('exchanges the key for an HttpOnly, SameSite=Strict cookie of 8 hours, stored as its hash only', async () => {
    const answer = await signIn({ origin: base, ...bearer(merchant.apiKey) });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ merchant_id: merchant.merchantId, expires_at: expect.any(String) });
    const setCookie = answer.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^gateway_dashboard=mds_\w+; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/);
    // Over plain http no Secure; over https it is (dashboard-session.spec.ts).
    const token = cookieOf(answer);
    const stored = await t.platform.db
      .knex('auth.credentials')
      .where({ owner_id: merchant.merchantId, kind: 'dashboard_session' });
    expect(stored.map((row: { hash: string }) => row.hash)).not.toContain(token);
    expect(stored.length).toBeGreaterThan(0);
  });

  it('signs /graphql in by the cookie from the dashboard origin; another origin, or none, is refused for a POST', async () => {
    const token = cookieOf(await signIn({ origin: base, ...bearer(merchant.apiKey) }));
    const cookie = `gateway_dashboard=${token}`;
    expect((await graphql(CURRENT, { cookie, origin: base })).body.data).toEqual({
      currentMerchant: { id: merchant.merchantId },
    });
    for (const origin of [{ origin: 'https://evil.example' }, {}] as Array<Record<string, string>>) {
      const refused = await graphql(ROTATE_SECRET(merchant.merchantId), { cookie, ...origin });
      expect({ status: refused.status, code: refused.body.errors?.[0]?.extensions.code }).toEqual({
        status: 403,
        code: 'FORBIDDEN',
      });
    }
    // The session cannot mint the next one: only the key signs in.
    const again = await signIn({ origin: base, authorization: `Bearer ${token}` });
    expect(again.status).toBe(403);
    // Sign-in and sign-out are refused from another origin.
    expect((await signIn({ origin: 'https://evil.example', ...bearer(merchant.apiKey) })).status).toBe(403);
  });

  it('opens graphql-ws by the cookie from the dashboard origin only', async () => {
    const token = cookieOf(await signIn({ origin: base, ...bearer(merchant.apiKey) }));
    const open = (origin: string) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
          headers: { cookie: `gateway_dashboard=${token}`, origin },
        });
        socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
        socket.on('message', (data) => {
          resolve(JSON.parse(String(data)).type as string);
          socket.close();
        });
        socket.on('unexpected-response', (_request, response) => resolve(`HTTP ${response.statusCode}`));
        socket.on('close', (code) => resolve(`closed ${code}`));
        socket.on('error', () => undefined);
      });
    expect(await open(base)).toBe('connection_ack');
    expect(await open('https://evil.example')).toBe('HTTP 403');
  });

  it('reads a report by the cookie for a request of this origin only (Sec-Fetch-Site or Origin); an API key from anywhere', async () => {
    const token = cookieOf(await signIn({ origin: base, ...bearer(merchant.apiKey) }));
    const report = (headers: Record<string, string>) =>
      fetch(`${base}/reports/sessions.csv?from=2026-01-01&to=2026-01-02`, { headers });
    const cookie = `gateway_dashboard=${token}`;
    // The dashboard's download link (same-origin), a typed address (none), a browser without Fetch Metadata (Origin).
    const owns: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      { origin: base },
    ];
    for (const own of owns) {
      const answer = await report({ cookie, ...own });
      expect(answer.status).toBe(200);
      expect((await answer.text()).split('\r\n')[0]).toMatch(/^session_id,created_at,/);
    }
    // Before: every one of these was answered with the merchant's rows.
    for (const foreign of [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      {},
    ] as Array<Record<string, string>>) {
      const refused = await report({ cookie, ...foreign });
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as { error: { code: string; request_id: string } };
      expect(body.error).toMatchObject({ code: 'FORBIDDEN', request_id: refused.headers.get('x-request-id') });
    }
    expect((await report({ ...bearer(merchant.apiKey), origin: 'https://evil.example' })).status).toBe(200);
  });

  it('signing out ends the session at the gateway and clears the cookie; a key rotation ends the others', async () => {
    const token = cookieOf(await signIn({ origin: base, ...bearer(merchant.apiKey) }));
    const cookie = `gateway_dashboard=${token}`;
    const out = await fetch(`${base}/dashboard/session`, { method: 'DELETE', headers: { cookie, origin: base } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(
      /^gateway_dashboard=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect((await graphql(CURRENT, { cookie, origin: base })).body.errors?.[0]?.extensions.code).toBe('UNAUTHORIZED');

    const other = cookieOf(await signIn({ origin: base, ...bearer(merchant.apiKey) }));
    expect((await graphql(CURRENT, { cookie: `gateway_dashboard=${other}`, origin: base })).body.data).toBeTruthy();
    const rotated = await t.rest('POST', `/merchants/${merchant.merchantId}/rotate-key`, {
      headers: { 'x-service-admin-key': t.adminKey },
    });
    expect(rotated.status).toBe(200);
    merchant = { ...merchant, apiKey: rotated.body.api_key };
    expect(
      (await graphql(CURRENT, { cookie: `gateway_dashboard=${other}`, origin: base })).body.errors?.[0]?.extensions
        .code,
    ).toBe('UNAUTHORIZED');
  });
});

/**
 * Behind a TLS proxy (PUBLIC_BASE_URL https; production likewise) the socket rest-compat sees is
 * plain http, yet the cookie must be Secure, and `__Host-` so that no sibling subdomain or
 * plain-http page can plant one (issue 46: it lacked Secure in production behind a TLS proxy).
 */
describe('dashboard session cookie behind TLS', () => {
  let t: TestPlatform;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestPlatform({ env: { PUBLIC_BASE_URL: 'https://pay.example.test' } });
    merchant = await t.seed.createMerchant({ name: 'TLS Shop', mode: 'test' });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('is __Host-gateway_dashboard, Secure, Path=/ and no Domain; the plain name is no session there', async () => {
    const base = t.platform.restUrl;
    const answer = await fetch(`${base}/dashboard/session`, {
      method: 'POST',
      headers: { origin: base, ...bearer(merchant.apiKey) },
    });
    expect(answer.status).toBe(201);
    const setCookie = answer.headers.get('set-cookie')!;
    expect(setCookie).toMatch(
      /^__Host-gateway_dashboard=mds_\w+; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const token = /^__Host-gateway_dashboard=([^;]*)/.exec(setCookie)![1]!;
    const current = (cookie: string) =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: base },
        body: CURRENT,
      }).then(
        async (response) => (await response.json()) as { data?: any; errors?: Array<{ extensions: { code: string } }> },
      );
    expect((await current(`__Host-gateway_dashboard=${token}`)).data).toEqual({
      currentMerchant: { id: merchant.merchantId },
    });
    expect((await current(`gateway_dashboard=${token}`)).errors?.[0]?.extensions.code).toBe('INVALID_API_KEY');
    // The public origin counts as this origin for a report read by the cookie.
    const report = await fetch(`${base}/reports/sessions.csv?from=2026-01-01&to=2026-01-02`, {
      headers: { cookie: `__Host-gateway_dashboard=${token}`, origin: 'https://pay.example.test' },
    });
    expect(report.status).toBe(200);
  });
});
