import { openServiceOrm, type Database, type MigrationObject, type ServiceOrm } from '@gateway/db';
import { ledgerEntities } from './entities';
import { sandboxMigrations } from '../migrations';

export const SANDBOX_SCHEMA = 'bank_sandbox';

/** Interpolated into raw SQL (the ledger's one-statement bookings), so only plain identifiers. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Sandbox banks started in one process on one database share one ORM per schema: running the
 * migrator once per bank concurrently would race on the same schema. The same ledger tables live
 * in `bank_sandbox` (the demo's sandbox banks) and in other schemas (the built-in test bank's
 * `test_banks`), each with its own ORM and migrations table.
 */
const orms = new WeakMap<Database, Map<string, Promise<ServiceOrm>>>();

/**
 * The ORM of the ledger in `schema`. `migrations` are that schema's (the ledger's by default); the
 * first caller for a (db, schema) decides them, so each schema's owner always passes the same list.
 */
export function sandboxOrm(
  db: Database,
  schema: string = SANDBOX_SCHEMA,
  migrations: MigrationObject[] = sandboxMigrations,
): Promise<ServiceOrm> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`sandbox ledger: schema "${schema}" must match ${SCHEMA_NAME}`);
  let perSchema = orms.get(db);
  if (!perSchema) orms.set(db, (perSchema = new Map()));
  let orm = perSchema.get(schema);
  if (!orm) {
    orm = openServiceOrm(db, { schema, entities: ledgerEntities, migrations });
    perSchema.set(schema, orm);
    const cache = perSchema;
    orm.catch(() => cache.delete(schema));
  }
  return orm;
}

/** The ledger tables of an ORM opened by sandboxOrm, quoted for raw SQL. */
export function ledgerTables(orm: ServiceOrm): {
  schema: string;
  customers: string;
  accounts: string;
  transactions: string;
} {
  const schema = orm.config.get('schema') ?? SANDBOX_SCHEMA;
  return {
    schema,
    customers: `"${schema}"."customers"`,
    accounts: `"${schema}"."accounts"`,
    transactions: `"${schema}"."transactions"`,
  };
}
