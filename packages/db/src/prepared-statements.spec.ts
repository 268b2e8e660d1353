import type { Database } from './database';
import { openTestDatabase } from './testing';

describe('prepared statements', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
    await db.knex.raw('create table prepared_probe (id integer primary key)');
    await db.knex.raw('insert into prepared_probe values (1), (2)');
  });
  afterAll(() => db.close());

  /** The connection's prepared statements whose text starts with `prefix`. */
  const preparedLike = (trx: Database['knex'], prefix: string) =>
    trx
      .raw(`select statement from pg_prepared_statements where statement like ? || '%'`, [prefix])
      .then((result: { rows: Array<{ statement: string }> }) => result.rows.map((row) => row.statement));

  it('prepares a statement with parameters once per connection, and leaves one without parameters unnamed', async () => {
    await db.knex.transaction(async (trx) => {
      for (const id of [1, 2, 1]) await trx.raw('select id from prepared_probe where id = ?', [id]);
      await trx.raw('select id from prepared_probe where id = 1');
      expect(await preparedLike(trx, 'select id from prepared_probe')).toEqual([
        'select id from prepared_probe where id = $1',
      ]);
    });
  });

  it('sends a statement unnamed from then on once a schema change refused its prepared plan', async () => {
    await db.knex.transaction(async (trx) => {
      expect((await trx.raw('select * from prepared_probe where id = ?', [1])).rows).toEqual([{ id: 1 }]);
    });
    await db.knex.raw('alter table prepared_probe add column note text');
    const again = () => db.knex.raw('select * from prepared_probe where id = ?', [1]).then((result) => result.rows);
    // PostgreSQL refuses a prepared `*` whose columns changed, once; the same text then goes unnamed.
    await again().catch((error: { code?: string }) => expect(error.code).toBe('0A000'));
    expect(await again()).toEqual([{ id: 1, note: null }]);
  });
});
