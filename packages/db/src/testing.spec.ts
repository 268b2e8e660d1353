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
