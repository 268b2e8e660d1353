/**
 * The merchant dashboard's sign-in (issue 28, item 8): the merchant key is exchanged once for a
 * session credential (vault kind dashboard_session) that the browser holds only in an HttpOnly,
 * SameSite=Strict cookie, so no script of the page can read a credential.
 */

/** Prefix of a dashboard session's secret: how the router tells it from a merchant key. */
export const DASHBOARD_SESSION_PREFIX = 'mds_';

/** The scope that marks a merchant principal as a dashboard session (it cannot start another one). */
export const DASHBOARD_SESSION_SCOPE = 'dashboard';

/** How long a session lasts from sign-in, whatever its use: a working day. */
export const DASHBOARD_SESSION_TTL_SECONDS = 8 * 3600;

/** The cookie that carries it (rest-compat sets and reads it; nothing else does). */
export const DASHBOARD_SESSION_COOKIE = 'gateway_dashboard';
