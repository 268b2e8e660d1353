import { openTestDatabase } from '@gateway/db/testing';
import type { Database, ServiceOrm } from '@gateway/db';
import { AccountBook } from './accounts';
import { MovementBook } from './movements';
import { sandboxOrm } from './orm';

/**
 * /sandbox/ledger (allTransactions) reads a bank's newest lines from an index in that order: a
 * plan that sorts reads the bank's whole ledger for every page, so each read costs more as it
 * grows. Sequential scans are switched off so that a table this small is planned as a big one.
 */
describe('the sandbox ledger, newest first', () => {
  let db: Database;
  let orm: ServiceOrm;

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await sandboxOrm(db);
  });
  afterAll(() => db.close());

  it('reads a page of the newest lines from an index, with no sort of the whole ledger', async () => {
    let clock = Date.parse('2026-11-30T10:00:00.000Z');
    const now = () => new Date((clock += 1_000));
    const accounts = new AccountBook(orm, 'orderbank', '012', now);
    const movements = new MovementBook(orm, 'orderbank', now);
    const iban = (await accounts.openAccount({ customerRef: 'c1', holderName: 'C One', currency: 'LYD', balance: 0 }))
      .iban;
    for (let i = 0; i < 5; i += 1)
      await movements.book('CREDIT', {
        iban,
        amount: 100,
        currency: 'LYD',
        reference: `order-${i}`,
        description: 'spec',
      });

    const sent: Array<{ sql: string; bindings: Array<string | number> }> = [];
    const knex = orm.em.getKnex();
    const keep = (query: { sql: string; bindings: Array<string | number> }) => void sent.push(query);
    knex.on('query', keep);
    const newest = await movements.allTransactions(3);
    knex.off('query', keep);
    expect(newest.map((line) => line.reference)).toEqual(['order-4', 'order-3', 'order-2']);

    const read = sent.find((query) => /from .*"transactions"/.test(query.sql))!;
    const plan = await knex.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      // The driver sends numbered parameters ($1, in order); knex.raw binds `?`.
      const { rows } = await trx.raw(`explain ${read.sql.replace(/\$\d+/g, '?')}`, read.bindings);
      return (rows as Array<{ 'QUERY PLAN': string }>).map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('transactions_bank_handle_booked_at_index');
    expect(plan).not.toMatch(/Sort/);
  });
});
