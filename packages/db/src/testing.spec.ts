import { openTestDatabase } from './testing';

describe('openTestDatabase', () => {
  it('gives each caller a database of its own', async () => {
    const [a, b] = await Promise.all([openTestDatabase(), openTestDatabase()]);
    await a.knex.raw('create table only_in_a (id int)');
    const seen = await b.knex.raw(
      "select count(*)::int as n from information_schema.tables where table_name = 'only_in_a'",
    );
    expect(seen.rows[0].n).toBe(0);
    await Promise.all([a.close(), b.close()]);
  });
});

// Templates are PostgreSQL databases (PGlite has no CREATE DATABASE); CI always sets DATABASE_URL.
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

onPostgres('openTestDatabase with a template', () => {
  const keys: string[] = [];
  const templateOf = (builds: { count: number }, fail = false) => {
    const key = `spec${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
    keys.push(key);
    return {
      key,
      async build(db: Awaited<ReturnType<typeof openTestDatabase>>) {
        builds.count += 1;
        await db.knex.raw('create table migrated (id int primary key)');
        await db.knex.raw('insert into migrated values (1)');
        if (fail) throw new Error('a migration failed');
      },
    };
  };
  const rowsOf = async (db: Awaited<ReturnType<typeof openTestDatabase>>) =>
    (await db.knex.raw('select id from migrated')).rows.map((row: { id: number }) => row.id);

  afterAll(async () => {
    const admin = await openTestDatabase();
    for (const key of keys) {
      const name = `gw_tpl_${key.slice(0, 24)}`;
      await admin.knex.raw(`drop database if exists "${name}_build" with (force)`);
      const found = await admin.knex.raw('select 1 from pg_database where datname = ?', [name]);
      if (found.rows.length === 0) continue;
      await admin.knex.raw(`alter database "${name}" with allow_connections true`);
      await admin.knex.raw(`drop database "${name}" with (force)`);
    }
    await admin.close();
  });

  it('builds the template once for callers at once, and gives each a copy of its own', async () => {
    const builds = { count: 0 };
    const template = templateOf(builds);
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => openTestDatabase({ template })));
    expect(builds.count).toBe(1);
    await a!.knex.raw('insert into migrated values (2)');
    expect([await rowsOf(a!), await rowsOf(b!), await rowsOf(c!)]).toEqual([[1, 2], [1], [1]]);
    await Promise.all([a!.close(), b!.close(), c!.close()]);
    // Later callers copy the built template without building.
    const d = await openTestDatabase({ template });
    expect([builds.count, await rowsOf(d)]).toEqual([1, [1]]);
    await d.close();
  });

  it('keeps nothing of a build that failed, and builds again at the next ask', async () => {
    const builds = { count: 0 };
    const failing = templateOf(builds, true);
    await expect(openTestDatabase({ template: failing })).rejects.toThrow('a migration failed');
    const again = await openTestDatabase({ template: { key: failing.key, build: templateOf(builds).build } });
    expect([builds.count, await rowsOf(again)]).toEqual([2, [1]]);
    await again.close();
  });
});
