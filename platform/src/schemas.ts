import { createHash } from 'node:crypto';
import { AUDIT_MIGRATIONS, AUDIT_SCHEMA } from '@gateway/audit';
import { openServiceOrm, type Database, type MigrationObject } from '@gateway/db';
import { BANKS_MIGRATIONS, BANKS_SCHEMA } from '@gateway/subgraph-banks';
import { IDENTITY_MIGRATIONS, IDENTITY_SCHEMA } from '@gateway/subgraph-identity';
import { OPEN_BANKING_MIGRATIONS, OPEN_BANKING_SCHEMA } from '@gateway/subgraph-open-banking';
import { PAYMENTS_MIGRATIONS, PAYMENTS_SCHEMA } from '@gateway/subgraph-payments';
import { VAULT_MIGRATIONS, VAULT_SCHEMA } from '@gateway/vault';

/**
 * Every schema the platform's services migrate at start, in the order they do: the vault's and the
 * audit log's first (the services read them), then each subgraph's.
 */
const PLATFORM_SCHEMAS: ReadonlyArray<{ schema: string; migrations: MigrationObject[] }> = [
  { schema: VAULT_SCHEMA, migrations: VAULT_MIGRATIONS },
  { schema: AUDIT_SCHEMA, migrations: AUDIT_MIGRATIONS },
  { schema: BANKS_SCHEMA, migrations: BANKS_MIGRATIONS },
  { schema: IDENTITY_SCHEMA, migrations: IDENTITY_MIGRATIONS },
  { schema: PAYMENTS_SCHEMA, migrations: PAYMENTS_MIGRATIONS },
  { schema: OPEN_BANKING_SCHEMA, migrations: OPEN_BANKING_MIGRATIONS },
];

/**
 * Applies every committed migration of the platform, and nothing else: no service starts, nothing
 * is seeded. A start on the database afterwards finds nothing pending. The migrations run with no
 * entities (they are SQL of their own), on the database's pool, which the caller closes.
 */
export async function migratePlatformSchemas(db: Database): Promise<void> {
  for (const { schema, migrations } of PLATFORM_SCHEMAS) await openServiceOrm(db, { schema, entities: [], migrations });
}

/** A hash of every migration's schema, name and code: databases migrated alike share it (test templates). */
export function platformSchemasKey(): string {
  const hash = createHash('sha256');
  for (const { schema, migrations } of PLATFORM_SCHEMAS)
    for (const migration of migrations) hash.update(`${schema}\0${migration.name}\0${String(migration.class)}\0`);
  return hash.digest('hex');
}
