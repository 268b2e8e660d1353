import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/core';
import type { Database } from './database';
import { GatewayPostgreSqlDriver } from './driver';

export interface ServiceOrmOptions {
  /** The Postgres schema this service owns (DESIGN "Data ownership"). */
  schema: string;
  entities: NonNullable<Options['entities']>;
  /** Committed migrations, in order. */
  migrations: MigrationObject[];
  /** Schemas whose tables another owner migrates (the vault's `auth`). */
  foreignSchemas?: string[];
  debug?: boolean;
}

export type ServiceOrm = MikroORM;

/** The service's ORM options on the process-wide pool. */
function ormOptions(db: Database, options: ServiceOrmOptions): Options {
  return {
    // Values as parameters, so statements are prepared once (driver.ts).
    driver: GatewayPostgreSqlDriver,
    // MikroORM reuses a knex instance handed over as driverOptions: the process-wide pool.
    driverOptions: db.knex as unknown as Options['driverOptions'],
    clientUrl: db.url,
    schema: options.schema,
    entities: options.entities,
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      tableName: `${options.schema}.mikro_orm_migrations`,
      migrationsList: options.migrations,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
    schemaGenerator: { ignoreSchema: options.foreignSchemas ?? [] },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: options.debug ?? false,
  };
}

/** Opens a service's ORM on the shared pool and applies its committed migrations. */
export async function openServiceOrm(db: Database, options: ServiceOrmOptions): Promise<ServiceOrm> {
  const orm = await MikroORM.init(ormOptions(db, options));
  const migrate = async () => {
    await db.knex.raw(`create schema if not exists "${options.schema}"`);
    await orm.getMigrator().up();
  };
  if (db.embedded) {
    // One process owns PGlite: nothing to race with (and its pool has a single connection).
    await migrate();
  } else {
    // Services started together (npm run start:<service>, several instances) would race on the
    // same schema: a transaction-scoped advisory lock per schema lets one migrate at a time.
    await db.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`gateway-migrations:${options.schema}`]);
      await migrate();
    });
  }
  return orm;
}

export type { EntityManager };
