import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_KEY_PREFIX, newSecret, writeFileAtomicSync } from '@gateway/kernel';

export interface PlatformSecrets {
  adminKey: string;
  platformSecret: string;
}

/**
 * Outside production, secrets not given in the environment are generated once and kept in
 * DATA_DIR/secrets.json (mode 0600), so a restart keeps the admin key the user was shown and
 * the keys sealed with the platform secret stay readable.
 */
export function resolveSecrets(
  dataDir: string,
  given: Partial<PlatformSecrets>,
  production: boolean,
): PlatformSecrets & { generated: boolean } {
  if (given.adminKey && given.platformSecret)
    return { adminKey: given.adminKey, platformSecret: given.platformSecret, generated: false };
  if (production) throw new Error('ADMIN_KEY and PLATFORM_SECRET are required in production mode');
  const file = join(dataDir, 'secrets.json');
  const stored: Partial<PlatformSecrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const secrets = {
    adminKey: given.adminKey ?? stored.adminKey ?? newSecret(ADMIN_KEY_PREFIX),
    platformSecret: given.platformSecret ?? stored.platformSecret ?? newSecret('pls_'),
  };
  if (secrets.adminKey !== stored.adminKey || secrets.platformSecret !== stored.platformSecret) {
    mkdirSync(dataDir, { recursive: true });
    // Atomic: a start killed while writing must not leave the keys sealed with this secret unreadable.
    writeFileAtomicSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  }
  return { ...secrets, generated: !given.adminKey };
}
