import Fastify from 'fastify';
import { registerRequestId } from '../../request-id';
import { cookieCredential, registerDashboardSession } from './dashboard-session';

describe('dashboard session cookie', () => {
  it('is Secure when the dashboard is served over https, and never without its origin', async () => {
    const app = Fastify({ trustProxy: true });
    registerRequestId(app);
    registerDashboardSession(app, async () => ({
      data: { startDashboardSession: { token: 'mds_x', merchantId: 'mer_1', expiresAt: '2030-01-01T00:00:00.000Z' } },
      headers: {},
    }));
    const signIn = (headers: Record<string, string>) =>
      app.inject({
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
    expect((await signIn({ host: 'pay.example.ly', origin: 'https://elsewhere.example' })).statusCode).toBe(403);
    expect((await signIn({ host: 'pay.example.ly' })).statusCode).toBe(403);
    await app.close();
  });

  it("turns the cookie into the router's credential; a request's own Authorization wins", () => {
    const cookie = 'gateway_dashboard=mds_abc; other=1';
    expect(cookieCredential({ cookie, host: 'h', origin: 'http://h' }, 'POST')).toEqual({
      authorization: 'Bearer mds_abc',
    });
    expect(cookieCredential({ cookie }, 'GET')).toEqual({ authorization: 'Bearer mds_abc' });
    expect(cookieCredential({ cookie, host: 'h', origin: 'http://evil' }, 'POST')).toMatchObject({ code: 'FORBIDDEN' });
    expect(cookieCredential({ cookie, authorization: 'Bearer mk_test_1' }, 'POST')).toBeUndefined();
    expect(cookieCredential({ cookie: 'gateway_dashboard=mk_test_1' }, 'POST')).toBeUndefined();
  });
});
