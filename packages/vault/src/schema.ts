import { openServiceOrm, type Database } from '@gateway/db';
import { Credential } from './credential.entity';
import { Migration20261122000000_auth_credentials } from './migrations/Migration20261122000000_auth_credentials';
import { Migration20261128000100_credential_client_use } from './migrations/Migration20261128000100_credential_client_use';
import { Migration20261206000100_credential_label } from './migrations/Migration20261206000100_credential_label';
import { Migration20261210000100_suspended_owners } from './migrations/Migration20261210000100_suspended_owners';
import { Migration20261222000100_credential_created_by } from './migrations/Migration20261222000100_credential_created_by';
import { Migration20261230000100_dpop_binding } from './migrations/Migration20261230000100_dpop_binding';

export const VAULT_SCHEMA = 'auth';

/** The vault's committed migrations, in order. */
export const VAULT_MIGRATIONS = [
  { name: 'Migration20261122000000_auth_credentials', class: Migration20261122000000_auth_credentials },
  { name: 'Migration20261128000100_credential_client_use', class: Migration20261128000100_credential_client_use },
  { name: 'Migration20261206000100_credential_label', class: Migration20261206000100_credential_label },
  { name: 'Migration20261210000100_suspended_owners', class: Migration20261210000100_suspended_owners },
  { name: 'Migration20261222000100_credential_created_by', class: Migration20261222000100_credential_created_by },
  { name: 'Migration20261230000100_dpop_binding', class: Migration20261230000100_dpop_binding },
];

/** Applies the vault's own migrations (the `auth` schema). Idempotent; every service that issues or verifies calls it. */
export async function migrateVault(db: Database): Promise<void> {
  await openVaultOrm(db);
}

/** The vault's own ORM, for services that only verify credentials (the router). */
export async function openVaultOrm(db: Database) {
  return openServiceOrm(db, {
    schema: VAULT_SCHEMA,
    entities: [Credential],
    migrations: VAULT_MIGRATIONS,
  });
}
