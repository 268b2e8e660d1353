import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { ledgerEntities } from './entities';
import { sandboxMigrations } from '../migrations';

export const SANDBOX_SCHEMA = 'bank_sandbox';

/**
 * Sandbox banks started in one process on one database share one ORM: running the migrator once
 * per bank concurrently would race on the same schema.
 */
const orms = new WeakMap<Database, Promise<ServiceOrm>>();

export function sandboxOrm(db: Database): Promise<ServiceOrm> {
  let orm = orms.get(db);
  if (!orm) {
    orm = openServiceOrm(db, { schema: SANDBOX_SCHEMA, entities: ledgerEntities, migrations: sandboxMigrations });
    orms.set(db, orm);
    orm.catch(() => orms.delete(db));
  }
  return orm;
}
