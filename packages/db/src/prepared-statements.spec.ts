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
    // One transaction, so every statement goes over the one connection that prepared it; each try
    // in a savepoint of its own, so the refusal does not end the transaction.
    await db.knex.transaction(async (trx) => {
      const select = () =>
        trx.transaction((savepoint) =>
          savepoint.raw('select * from prepared_probe where id = ?', [1]).then((result) => result.rows),
        );
      expect(await select()).toEqual([{ id: 1 }]);
      await trx.raw('alter table prepared_probe add column note text');
      // PostgreSQL refuses the prepared `*` whose columns changed; the same text then goes unnamed, again and again.
      expect(
        await select().then(
          () => 'answered',
          (error: { code?: string }) => error.code,
        ),
      ).toBe('0A000');
      expect(await select()).toEqual([{ id: 1, note: null }]);
      expect(await select()).toEqual([{ id: 1, note: null }]);
    });
  });
});
