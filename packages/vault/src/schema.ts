import { openServiceOrm, type Database } from '@gateway/db';
import { Credential } from './credential.entity';
import { Migration20261122000000_auth_credentials } from './migrations/Migration20261122000000_auth_credentials';

export const VAULT_SCHEMA = 'auth';

/** Applies the vault's own migrations (the `auth` schema). Idempotent; every service that issues or verifies calls it. */
export async function migrateVault(db: Database): Promise<void> {
  await openServiceOrm(db, {
    schema: VAULT_SCHEMA,
    entities: [Credential],
    migrations: [{ name: 'Migration20261122000000_auth_credentials', class: Migration20261122000000_auth_credentials }],
  });
}
