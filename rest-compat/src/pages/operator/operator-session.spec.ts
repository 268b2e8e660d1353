import { setDashboardCookie } from '../dashboard/dashboard-cookie';
import { operatorCookie, operatorSessionOf } from './operator-session';

describe('operator console cookie', () => {
  it('is __Host-, Secure, Path=/ without Domain behind TLS (production or an https PUBLIC_BASE_URL)', () => {
    for (const options of [{ production: true }, { publicBaseUrl: 'https://gateway.example' }]) {
      const cookie = operatorCookie(options);
      expect(cookie.name).toBe('__Host-gateway_operator');
      expect(setDashboardCookie(cookie, 'ocs_x', 28800, false)).toBe(
        '__Host-gateway_operator=ocs_x; Max-Age=28800; Path=/; HttpOnly; Secure; SameSite=Strict',
      );
    }
  });

  it('keeps its plain name over http, Secure only on a request that came over https', () => {
    const cookie = operatorCookie({ publicBaseUrl: 'http://localhost:8080' });
    expect(cookie.name).toBe('gateway_operator');
    expect(setDashboardCookie(cookie, 'ocs_x', 28800, false)).not.toMatch(/Secure/);
    expect(setDashboardCookie(cookie, 'ocs_x', 28800, true)).toMatch(/; Secure;/);
  });

  it('reads only a console session (ocs_…) from its own cookie name', () => {
    const cookie = operatorCookie({});
    expect(operatorSessionOf({ cookie: 'gateway_operator=ocs_abc' }, cookie)).toBe('ocs_abc');
    expect(operatorSessionOf({ cookie: 'gateway_operator=mds_abc' }, cookie)).toBeUndefined();
    expect(operatorSessionOf({ cookie: 'gateway_dashboard=ocs_abc' }, cookie)).toBeUndefined();
  });
});
