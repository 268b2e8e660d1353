import { z } from '@gateway/kernel';

/**
 * The name the configured ADMIN_KEY carries (router/src/authenticate.ts), and what a key made by
 * it records as its maker (created_by): no named key may pose as it, and no key id (adk_…) is it.
 */
export const CONFIGURED_ADMIN_KEY_NAME = 'ADMIN_KEY';

/**
 * ADMIN_KEY however it is written: case, the separators a name may use (`.`, `_`, `-`) and the
 * digits that read as letters (`adm1n-k3y`) do not make it another name in a log line.
 */
const DIGITS_AS_LETTERS: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't' };
export const readsAsAdminKey = (name: string): boolean =>
  name
    .toLowerCase()
    .replace(/[._-]/g, '')
    .replace(/[013457]/g, (digit) => DIGITS_AS_LETTERS[digit]!) === 'adminkey';

/**
 * An operator's name for a key, shown in logs and the audit log (issue 46): plain ASCII
 * `[a-z0-9._-]`, 3-40 characters, so no look-alike letter (a Cyrillic `Е`), control or
 * formatting character, space or capital can make one key read as another; and never ADMIN_KEY,
 * the configured key's name, in any spelling.
 */
export const createAdminKeyRules = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9._-]{3,40}$/, 'must be 3-40 characters of a-z, 0-9, ".", "_" or "-"')
    .refine((name) => !readsAsAdminKey(name), "must not be ADMIN_KEY (the configured key's name) in any spelling"),
});
