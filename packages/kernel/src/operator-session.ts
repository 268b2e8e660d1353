/**
 * The operator console's sign-in (issue 50): an admin key is exchanged once for a session
 * credential (vault kind operator_session) that the browser holds only in an HttpOnly,
 * SameSite=Strict cookie, so no script of the console can read a credential.
 */

/** Prefix of a console session's secret: how the router tells it from other bearer tokens. */
export const OPERATOR_SESSION_PREFIX = 'ocs_';

/** The scope that marks an admin principal as a console session (it cannot start another one). */
export const OPERATOR_SESSION_SCOPE = 'operator_console';

/** How long a session lasts from sign-in, whatever its use: a working shift. */
export const OPERATOR_SESSION_TTL_SECONDS = 8 * 3600;

/** The cookie that carries it (rest-compat sets and reads it; nothing else does). */
export const OPERATOR_SESSION_COOKIE = 'gateway_operator';

/** The vault owner of a session started with the configured ADMIN_KEY, which has no key id. */
export const CONFIGURED_ADMIN_KEY_OWNER = 'ADMIN_KEY';
