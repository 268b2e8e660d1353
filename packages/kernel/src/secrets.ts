import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken } from './ids';

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

export const hmacSha256Hex = (key: string, body: string | Buffer): string =>
  createHmac('sha256', key).update(body).digest('hex');

/** Constant-time string comparison; lengths are compared on hashes so they leak nothing either. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** A raw secret with a recognisable prefix, e.g. `mk_test_…`, `whsec_…`. 32 base62 chars (~190 bits). */
export const newSecret = (prefix: string): string => `${prefix}${randomToken(32)}`;

/**
 * The one prefix of every admin key the platform generates: the first key (ADMIN_KEY, when the
 * platform generates it) and every named key (POST /admin/keys), so a leaked one is recognisable
 * by secret scanners as `adm_` and 32 base62 characters (issue 46). An ADMIN_KEY set in the
 * environment is accepted as it is.
 */
export const ADMIN_KEY_PREFIX = 'adm_';
