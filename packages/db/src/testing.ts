import { knex, type Knex } from '@mikro-orm/knex';
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from './database';

/**
 * A database state every test database of a kind starts from: `build` makes it on an empty
 * database (migrations, nothing seeded), `key` names what it made (a hash of the migrations), so a
 * change of them builds a new one.
 */
export interface TestDatabaseTemplate {
  key: string;
  build(db: Database): Promise<void>;
}

/**
 * A database of its own for one test file, so files run in parallel without sharing rows or
 * racing on migrations: a fresh PostgreSQL database when DATABASE_URL is set (dropped on close),
 * otherwise an in-memory PGlite. With a template (PostgreSQL only), the database is a copy of the
 * template's, built once per key on the server: a platform start then finds its migrations applied
 * instead of applying them (about a second of every test file's start on a busy CI machine).
 */
export async function openTestDatabase(options: { template?: TestDatabaseTemplate } = {}): Promise<Database> {
  const serverUrl = process.env.DATABASE_URL;
  // CI must exercise PostgreSQL: a missing DATABASE_URL there is a broken run, not a skip.
  if (!serverUrl && process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL is not set');
  if (!serverUrl) return openDatabase();
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: { connectionString: serverUrl }, pool: { min: 0, max: 1 } });
  if (options.template) {
    // Nobody is connected to the template (it refuses connections): PostgreSQL copies it at once.
    await admin.raw(`create database "${name}" template "${await ensureTemplate(admin, serverUrl, options.template)}"`);
  } else {
    await admin.raw(`create database "${name}"`);
  }
  const db = await openDatabase({ url: databaseUrl(serverUrl, name), poolSize: 5 });
  return {
    ...db,
    async close() {
      await db.close();
      await admin.raw(`drop database if exists "${name}" with (force)`);
      await admin.destroy();
    },
  };
}

const databaseUrl = (serverUrl: string, name: string): string => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

/** Templates this process has seen built: asked once per key. */
const ready = new Map<string, Promise<string>>();

/**
 * The template's database, built under a server-wide advisory lock by the first test file that
 * needs it (the others, in other workers, wait for it). Built under another name and renamed when
 * whole, so a build that dies halfway is never copied; it refuses connections once built, so
 * nothing (autovacuum included) holds it open when a copy is made.
 */
function ensureTemplate(admin: Knex, serverUrl: string, template: TestDatabaseTemplate): Promise<string> {
  const name = `gw_tpl_${template.key.slice(0, 24)}`;
  let found = ready.get(name);
  if (!found) {
    found = buildOnce(admin, serverUrl, name, template).catch((error: unknown) => {
      ready.delete(name);
      throw error;
    });
    ready.set(name, found);
  }
  return found;
}

async function buildOnce(
  admin: Knex,
  serverUrl: string,
  name: string,
  template: TestDatabaseTemplate,
): Promise<string> {
  // The lock's transaction has a connection of its own: CREATE DATABASE cannot run inside one.
  const locker = knex({ client: 'pg', connection: { connectionString: serverUrl }, pool: { min: 0, max: 1 } });
  try {
    await locker.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`gateway-test-template:${name}`]);
      const exists = await admin.raw('select 1 from pg_database where datname = ?', [name]);
      if (exists.rows.length > 0) return;
      const building = `${name}_build`;
      await admin.raw(`drop database if exists "${building}" with (force)`);
      await admin.raw(`create database "${building}"`);
      // Two connections: a migration holds one in its advisory-locked transaction while it runs on the other.
      const db = await openDatabase({ url: databaseUrl(serverUrl, building), poolSize: 2 });
      try {
        await template.build(db);
      } finally {
        await db.close();
      }
      await admin.raw(`alter database "${building}" rename to "${name}"`);
      await admin.raw(`alter database "${name}" with allow_connections false`);
    });
  } finally {
    await locker.destroy();
  }
  return name;
}
