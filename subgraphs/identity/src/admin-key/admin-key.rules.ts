import { rules, z } from '@gateway/kernel';

/** The name the configured ADMIN_KEY carries (router/src/authenticate.ts): no named key may pose as it. */
export const CONFIGURED_ADMIN_KEY_NAME = 'ADMIN_KEY';

/**
 * An operator's name for a key, shown in logs and the audit log: printable, no control
 * characters (it goes into log lines as it is), 1-64 characters.
 */
export const createAdminKeyRules = z.object({
  name: rules.text(64).regex(/^[^\p{Cc}\p{Cf}]+$/u, 'must be printable text without control characters'),
});
