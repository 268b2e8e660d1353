import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { DASHBOARD_SESSION_COOKIE, DASHBOARD_SESSION_PREFIX } from '@gateway/kernel';

/**
 * The name and attributes of the dashboard's session cookie, fixed for a running gateway.
 *
 * Behind TLS (production, or PUBLIC_BASE_URL https: a proxy ends TLS, so this layer's own socket
 * is plain http and the request alone cannot tell) the cookie is `__Host-gateway_dashboard`,
 * Secure, Path=/ and no Domain, as the prefix requires: the browser sends it over https only, and
 * neither a sibling subdomain nor a plain-http page can set or overwrite it (cookie tossing,
 * RFC 6265bis "Cookie Name Prefixes"). Over plain http (`npm start`, the tests) a browser would
 * drop a Secure or `__Host-` cookie, so it keeps its plain name, Secure only on a request that
 * came over https. Each mode reads only the name it writes.
 */
export interface DashboardCookie {
  readonly name: string;
  /** Secure on every answer (TLS in front); otherwise only on a request that came over https. */
  readonly alwaysSecure: boolean;
}

/** The prefix browsers hold to Secure, Path=/ and no Domain. */
export const HOST_COOKIE_PREFIX = '__Host-';

const isHttps = (url: string | undefined): boolean => {
  try {
    return url !== undefined && new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
};

export function dashboardCookie(options: { production?: boolean; publicBaseUrl?: string }): DashboardCookie {
  const tls = Boolean(options.production) || isHttps(options.publicBaseUrl);
  return {
    name: tls ? `${HOST_COOKIE_PREFIX}${DASHBOARD_SESSION_COOKIE}` : DASHBOARD_SESSION_COOKIE,
    alwaysSecure: tls,
  };
}

/** The dashboard session a request's cookie carries (mds_…), if any. */
export function dashboardSessionOf(headers: IncomingHttpHeaders, cookie: DashboardCookie): string | undefined {
  const token = headers.cookie ? parseCookies(headers.cookie)[cookie.name] : undefined;
  return token?.startsWith(DASHBOARD_SESSION_PREFIX) ? token : undefined;
}

/** The Set-Cookie value carrying `value` for `maxAge` seconds (0 clears it). */
export const setDashboardCookie = (
  cookie: DashboardCookie,
  value: string,
  maxAge: number,
  overHttps: boolean,
): string =>
  serializeCookie(cookie.name, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure: cookie.alwaysSecure || overHttps,
    path: '/',
    maxAge,
  });
