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
