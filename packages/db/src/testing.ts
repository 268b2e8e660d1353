import { knex } from '@mikro-orm/knex';
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from './database';

/**
 * A database of its own for one test file, so files run in parallel without sharing rows or
 * racing on migrations: a fresh PostgreSQL database when DATABASE_URL is set (dropped on close),
 * otherwise an in-memory PGlite.
 */
export async function openTestDatabase(): Promise<Database> {
  const serverUrl = process.env.DATABASE_URL;
  // CI must exercise PostgreSQL: a missing DATABASE_URL there is a broken run, not a skip.
  if (!serverUrl && process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL is not set');
  if (!serverUrl) return openDatabase();
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: { connectionString: serverUrl }, pool: { min: 0, max: 1 } });
  await admin.raw(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), poolSize: 5 });
  return {
    ...db,
    async close() {
      await db.close();
      await admin.raw(`drop database if exists "${name}" with (force)`);
      await admin.destroy();
    },
  };
}
