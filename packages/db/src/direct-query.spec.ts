import type { Database } from './database';
import { positioned, queryDirect, rawQuery } from './direct-query';
import { openTestDatabase } from './testing';

describe('positioned', () => {
  it('numbers the placeholders as knex does, and a \\? stays a literal question mark', () => {
    expect(positioned('select ? as a, ? as b')).toBe('select $1 as a, $2 as b');
    expect(positioned(`select '{"a":1}'::jsonb \\? 'a' and ? = 1`)).toBe(`select '{"a":1}'::jsonb ? 'a' and $1 = 1`);
    expect(positioned('select 1')).toBe('select 1');
  });

  it('numbers each text once and answers the same text after', () => {
    const sql = `select ? as a -- ${Math.random()}`;
    expect(positioned(sql)).toBe(positioned(sql));
  });
});

describe('queryDirect', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
    await db.knex.raw('create table direct_probe (id integer primary key, note text)');
  });
  afterAll(() => db.close());

  it("answers what knex.raw answers for the same statement, on the pool's connections", async () => {
    await db.knex.raw('insert into direct_probe values (1, ?), (2, ?)', ['one', 'two']);
    const sql = 'select id, note from direct_probe where id >= ? and note <> ? order by id';
    const direct = (await queryDirect(db.knex, { sql, values: [1, 'two'] })) as { rows: unknown[]; command: string };
    const viaKnex = (await db.knex.raw(sql, [1, 'two'])) as { rows: unknown[]; command: string };
    expect(direct.rows).toEqual([{ id: 1, note: 'one' }]);
    expect(direct.rows).toEqual(viaKnex.rows);
    expect(direct.command).toBe(viaKnex.command);
  });

  it("tells the knex instance of each statement, its response and its error, as knex's runner does", async () => {
    const seen: string[] = [];
    const query = (sent: { sql: string; bindings: unknown[] }) => seen.push(`query ${sent.sql} ${sent.bindings}`);
    const response = (result: { rows: unknown[] }, sent: { sql: string }) =>
      seen.push(`response ${sent.sql} ${JSON.stringify(result.rows)}`);
    const error = (failure: { code?: string }, sent: { sql: string }) => seen.push(`error ${sent.sql} ${failure.code}`);
    db.knex.on('query', query).on('query-response', response).on('query-error', error);
    try {
      await queryDirect(db.knex, { sql: 'select ?::integer as a', values: [7] });
      await queryDirect(db.knex, { sql: 'select ?::integer / 0', values: [7] }).catch(() => undefined);
    } finally {
      db.knex.off('query', query).off('query-response', response).off('query-error', error);
    }
    expect(seen).toEqual([
      'query select $1::integer as a 7',
      'response select $1::integer as a [{"a":7}]',
      'query select $1::integer / 0 7',
      'error select $1::integer / 0 22012',
    ]);
  });

  it('hands the connection back when PostgreSQL refuses the statement', async () => {
    const refused = queryDirect(db.knex, { sql: 'insert into direct_probe values (?, ?)', values: [1, 'again'] });
    await expect(refused).rejects.toMatchObject({ code: '23505' });
    // The pool still serves: every connection it has was handed back.
    const pool = (db.knex.client as { pool: { numUsed(): number } }).pool;
    expect(pool.numUsed()).toBe(0);
    await expect(queryDirect(db.knex, { sql: 'select ?::integer as a', values: [1] })).resolves.toMatchObject({
      rows: [{ a: 1 }],
    });
  });
});

describe('rawQuery', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
    await db.knex.raw('create table raw_probe (id integer primary key, note text)');
    await db.knex.raw(`insert into raw_probe values (1, 'one')`);
  });
  afterAll(() => db.close());

  it('answers what knex.raw answers, for plain values and for what it leaves to knex (identifiers, lists)', async () => {
    for (const [sql, bindings] of [
      ['select id, note from raw_probe where id = ? and note <> ?', [1, 'two']],
      ['select ??, ?? from ?? where id = ?', ['id', 'note', 'raw_probe', 1]],
      // A list is one value to knex.raw (a PostgreSQL array), not `?, ?`.
      ['select ?::integer[] as ids', [[1, 2]]],
    ] as const) {
      const { rows } = await rawQuery(db.knex, sql, bindings);
      expect(rows.length).toBe(1);
      expect(rows).toEqual((await db.knex.raw(sql, bindings as never)).rows);
    }
    expect((await rawQuery(db.knex, 'select ?::integer[] as ids', [[1, 2]])).rows).toEqual([{ ids: [1, 2] }]);
  });

  it("runs a transaction's statement on the transaction's connection (it sees what the transaction wrote)", async () => {
    await db.knex
      .transaction(async (trx) => {
        await trx.raw(`insert into raw_probe values (2, 'two')`);
        const { rows } = await rawQuery(trx, 'select note from raw_probe where id = ?', [2]);
        expect(rows).toEqual([{ note: 'two' }]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect((await rawQuery(db.knex, 'select note from raw_probe where id = ?', [2])).rows).toEqual([]);
  });
});
