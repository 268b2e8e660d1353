import Fastify from 'fastify';
import { registerRequestId } from '../../request-id';
import { dashboardCookie, type DashboardCookie } from './dashboard-cookie';
import { cookieCredential, readFromThisOrigin, registerDashboardSession } from './dashboard-session';

const PLAIN = dashboardCookie({});
const TLS = dashboardCookie({ production: true });

/** A rest-compat with only the session routes, whose router answers every operation with a session. */
function app(options: { cookie: DashboardCookie; publicOrigin?: string }) {
  const server = Fastify({ trustProxy: true });
  registerRequestId(server);
  registerDashboardSession(
    server,
    async () => ({
      data: { startDashboardSession: { token: 'mds_x', merchantId: 'mer_1', expiresAt: '2030-01-01T00:00:00.000Z' } },
      headers: {},
    }),
    options,
  );
  // Stands for the report routes: answers the credential the hook gave it.
  server.get('/reports/sessions.csv', async (request) => ({ authorization: request.headers.authorization ?? null }));
  return server;
}

describe('dashboard session cookie', () => {
  it('is Secure when the dashboard is served over https, and never without its origin', async () => {
    const server = app({ cookie: PLAIN });
    const signIn = (headers: Record<string, string>) =>
      server.inject({
        method: 'POST',
        url: '/dashboard/session',
        headers: { authorization: 'Bearer mk_test_x', ...headers },
      });
    const overHttps = await signIn({
      host: 'pay.example.ly',
      origin: 'https://pay.example.ly',
      'x-forwarded-proto': 'https',
    });
    expect(overHttps.headers['set-cookie']).toBe(
      'gateway_dashboard=mds_x; Max-Age=28800; Path=/; HttpOnly; Secure; SameSite=Strict',
    );
    // Plain http (npm start, the browser tests): the name and attributes of before.
    expect((await signIn({ host: 'localhost:8080', origin: 'http://localhost:8080' })).headers['set-cookie']).toBe(
      'gateway_dashboard=mds_x; Max-Age=28800; Path=/; HttpOnly; SameSite=Strict',
    );
    expect((await signIn({ host: 'pay.example.ly', origin: 'https://elsewhere.example' })).statusCode).toBe(403);
    expect((await signIn({ host: 'pay.example.ly' })).statusCode).toBe(403);
    await server.close();
  });

  it('is __Host- and Secure behind TLS (production, or an https PUBLIC_BASE_URL) even when the socket is http', async () => {
    expect(dashboardCookie({ publicBaseUrl: 'https://pay.example.ly' })).toEqual(TLS);
    expect(dashboardCookie({ publicBaseUrl: 'http://127.0.0.1:8080' })).toEqual(PLAIN);
    expect(TLS).toEqual({ name: '__Host-gateway_dashboard', alwaysSecure: true });

    const server = app({ cookie: TLS, publicOrigin: 'https://pay.example.ly' });
    // The TLS proxy forwards plain http and says nothing of it (no trusted X-Forwarded-Proto).
    const headers = { host: 'pay.example.ly', origin: 'https://pay.example.ly' };
    const signIn = await server.inject({
      method: 'POST',
      url: '/dashboard/session',
      headers: { authorization: 'Bearer mk_live_x', ...headers },
    });
    // The prefix's rules: Secure, Path=/, no Domain.
    expect(signIn.headers['set-cookie']).toBe(
      '__Host-gateway_dashboard=mds_x; Max-Age=28800; Path=/; HttpOnly; Secure; SameSite=Strict',
    );
    const signOut = await server.inject({
      method: 'DELETE',
      url: '/dashboard/session',
      headers: { ...headers, cookie: '__Host-gateway_dashboard=mds_x' },
    });
    expect(signOut.headers['set-cookie']).toBe(
      '__Host-gateway_dashboard=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict',
    );
    await server.close();

    // Each mode reads the name it writes: a plain cookie (set by a sibling subdomain or over http) is no session behind TLS.
    expect(cookieCredential({ cookie: '__Host-gateway_dashboard=mds_a' }, 'GET', TLS)).toEqual({
      authorization: 'Bearer mds_a',
    });
    expect(cookieCredential({ cookie: 'gateway_dashboard=mds_a' }, 'GET', TLS)).toBeUndefined();
    expect(cookieCredential({ cookie: '__Host-gateway_dashboard=mds_a' }, 'GET', PLAIN)).toBeUndefined();
  });

  it("turns the cookie into the router's credential; a request's own Authorization wins", () => {
    const cookie = 'gateway_dashboard=mds_abc; other=1';
    expect(cookieCredential({ cookie, host: 'h', origin: 'http://h' }, 'POST', PLAIN)).toEqual({
      authorization: 'Bearer mds_abc',
    });
    expect(cookieCredential({ cookie }, 'GET', PLAIN)).toEqual({ authorization: 'Bearer mds_abc' });
    expect(cookieCredential({ cookie, host: 'h', origin: 'http://evil' }, 'POST', PLAIN)).toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(cookieCredential({ cookie, authorization: 'Bearer mk_test_1' }, 'POST', PLAIN)).toBeUndefined();
    expect(cookieCredential({ cookie: 'gateway_dashboard=mk_test_1' }, 'POST', PLAIN)).toBeUndefined();
  });
});

describe('a report read by the dashboard cookie', () => {
  it('is read for this origin only: Sec-Fetch-Site same-origin or none, else an Origin of its own', () => {
    const own = 'https://pay.example.ly';
    const read = (headers: Record<string, string>) => readFromThisOrigin({ host: 'pay.example.ly', ...headers }, own);
    expect(read({ 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(read({ 'sec-fetch-site': 'none' })).toBe(true);
    // A sibling subdomain is same-site: SameSite=Strict sends it the cookie, this does not.
    expect(read({ 'sec-fetch-site': 'same-site' })).toBe(false);
    expect(read({ 'sec-fetch-site': 'cross-site', origin: own })).toBe(false);
    expect(read({ origin: own })).toBe(true);
    expect(read({ origin: 'https://shop.pay.example.ly' })).toBe(false);
    expect(read({})).toBe(false);
    // Behind a proxy that rewrites Host, the public origin still counts.
    expect(readFromThisOrigin({ host: '10.0.0.7:8080', origin: own }, own)).toBe(true);
  });

  it('answers 403 in the spec error shape to another origin; an API key is not concerned', async () => {
    const server = app({ cookie: PLAIN, publicOrigin: 'http://127.0.0.1:8080' });
    const get = (headers: Record<string, string>) =>
      server.inject({
        method: 'GET',
        url: '/reports/sessions.csv?from=a&to=b',
        headers: { host: '127.0.0.1:8080', ...headers },
      });
    const cookie = 'gateway_dashboard=mds_r';

    for (const foreign of [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      {},
    ] as Array<Record<string, string>>) {
      const refused = await get({ cookie, ...foreign });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({
        error: {
          code: 'FORBIDDEN',
          message: expect.any(String),
          detail: expect.stringContaining('Sec-Fetch-Site or Origin'),
          request_id: refused.headers['x-request-id'],
        },
      });
    }
    expect((await get({ cookie, 'sec-fetch-site': 'same-origin' })).json()).toEqual({ authorization: 'Bearer mds_r' });
    expect((await get({ cookie, origin: 'http://127.0.0.1:8080' })).json()).toEqual({ authorization: 'Bearer mds_r' });
    // With an API key the cookie plays no part, wherever the call comes from.
    expect((await get({ cookie, authorization: 'Bearer mk_test_k', 'sec-fetch-site': 'cross-site' })).json()).toEqual({
      authorization: 'Bearer mk_test_k',
    });
    await server.close();
  });
});
