import { openTestDatabase } from '@gateway/db/testing';
import { openDatabase, type Database, type ServiceOrm } from '@gateway/db';
import { AccountBook } from './accounts';
import { MovementBook, type BookingResult, type MovementInput } from './movements';
import { sandboxOrm } from './orm';

describe('MovementBook.book', () => {
  let db: Database;
  let orm: ServiceOrm;
  let accounts: AccountBook;
  let movements: MovementBook;
  const now = new Date('2025-04-02T09:30:00.000Z');

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await sandboxOrm(db);
    accounts = new AccountBook(orm, 'ledger1', '011', () => now);
    movements = new MovementBook(orm, 'ledger1', () => now);
  });
  afterAll(() => db.close());

  const account = async (customerRef: string, balance: number, currency = 'LYD') =>
    (await accounts.openAccount({ customerRef, holderName: `Holder ${customerRef}`, currency, balance })).iban;
  const input = (iban: string, amount: number, reference: string, currency = 'LYD'): MovementInput => ({
    iban,
    amount,
    currency,
    reference,
    description: 'spec',
  });
  const balance = async (iban: string) => (await accounts.getAccount(iban))?.balance;
  const rows = (iban: string) => movements.statement(iban);
  /** Every SQL statement the ORM's pool sends while `run` runs (BEGIN and COMMIT included). */
  const statementsOf = async <T>(run: () => Promise<T>): Promise<{ result: T; sent: string[] }> => {
    const sent: string[] = [];
    const knex = orm.em.getKnex();
    const count = (query: { sql: string }) => void sent.push(query.sql);
    knex.on('query', count);
    try {
      return { result: await run(), sent };
    } finally {
      knex.off('query', count);
    }
  };
  /**
   * Runs `bookings` while another session holds the account's row lock, having moved its balance
   * by `change` (as a booking alongside would), and lets go once at least two of them wait: they
   * then run at once, each from a snapshot older than the balance. PGlite has a single session:
   * there the change comes first and the bookings take turns.
   */
  const racing = async <T>(iban: string, change: number, bookings: () => Promise<T>): Promise<T> => {
    const move = `update "bank_sandbox"."accounts" set "balance" = "balance" + ? where "bank_handle" = 'ledger1' and "iban" = ?`;
    if (db.embedded) {
      await db.knex.raw(move, [change, iban]);
      return bookings();
    }
    const other = await openDatabase({ url: db.url, poolSize: 2 });
    try {
      const holder = await other.knex.transaction();
      await holder.raw(move, [change, iban]);
      const running = bookings();
      let waiting = 0;
      for (let tries = 0; waiting < 2 && tries < 250; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const { rows } = await other.knex.raw(
          `select count(*)::integer as "n" from pg_stat_activity where "datname" = current_database() and "wait_event_type" = 'Lock'`,
        );
        waiting = rows[0].n;
      }
      await holder.commit();
      expect(waiting).toBeGreaterThanOrEqual(2);
      return await running;
    } finally {
      await other.close();
    }
  };
  /** The outcome of a booking: its result, or the code of the error it was refused with. */
  const settle = (booking: Promise<BookingResult>) =>
    booking.then(
      (result) => ({ result, code: null as string | null }),
      (error: { code?: string }) => ({ result: null, code: error.code ?? String(error) }),
    );

  it('books a fresh debit, a fresh credit and a fresh rail credit in ONE SQL statement each (no BEGIN, no COMMIT)', async () => {
    const iban = await account('one-statement', 1_000);
    const debit = await statementsOf(() => movements.book('DEBIT', input(iban, 400, 'ops_one_debit')));
    const credit = await statementsOf(() => movements.book('CREDIT', input(iban, 50, 'stl_one_credit')));
    const rail = await statementsOf(() => movements.book('CREDIT', input(iban, 25, 'ops_one_rail')));
    expect(debit.sent).toHaveLength(1);
    expect(credit.sent).toHaveLength(1);
    expect(rail.sent).toHaveLength(1);
    expect(debit.result).toMatchObject({ replayed: false, railCredit: false, transaction: { balanceAfter: 600 } });
    expect(credit.result).toMatchObject({ replayed: false, railCredit: false, transaction: { balanceAfter: 650 } });
    expect(rail.result).toMatchObject({ replayed: false, railCredit: true, transaction: { balanceAfter: 675 } });
    expect(await balance(iban)).toBe(675);
  });

  it('answers a fresh booking with the row as stored, and a replay with that same row', async () => {
    const iban = await account('as-stored', 1_000);
    const debit = await movements.book('DEBIT', input(iban, 300, 'ops_as_stored'));
    expect(debit).toEqual({
      replayed: false,
      railCredit: false,
      transaction: {
        transactionId: expect.stringMatching(/^txn_/),
        operation: 'DEBIT',
        reference: 'ops_as_stored',
        iban,
        amount: 300,
        currency: 'LYD',
        description: 'spec',
        debtorBank: null,
        sessionId: null,
        rrn: null,
        balanceAfter: 700,
        bookedAt: now,
        bookingDate: '2025-04-02',
        confirmationStatus: null,
        confirmationAttempts: 0,
      },
    });
    expect(await movements.findTransaction(debit.transaction.transactionId)).toEqual(debit.transaction);
    // A rail credit (an `ops_` reference this bank never debited) carries its session, rrn and confirmation.
    const rail = await movements.book('CREDIT', input(iban, 120, 'ops_as_stored_rail'));
    expect(rail).toMatchObject({
      replayed: false,
      railCredit: true,
      transaction: {
        sessionId: 'ops_as_stored_rail',
        rrn: expect.any(String),
        confirmationStatus: 'PENDING',
        balanceAfter: 820,
      },
    });
    expect(await movements.findTransaction(rail.transaction.transactionId)).toEqual(rail.transaction);
    // The credit of a payment this bank debited is not a rail credit.
    const internal = await movements.book('CREDIT', input(iban, 300, 'ops_as_stored'));
    expect(internal).toMatchObject({
      railCredit: false,
      transaction: { sessionId: null, rrn: null, confirmationStatus: null, balanceAfter: 1_120 },
    });

    const replays = await Promise.all([
      movements.book('DEBIT', input(iban, 300, 'ops_as_stored')),
      movements.book('CREDIT', input(iban, 120, 'ops_as_stored_rail')),
    ]);
    expect(replays).toEqual([
      { replayed: true, railCredit: false, transaction: debit.transaction },
      { replayed: true, railCredit: false, transaction: rail.transaction },
    ]);
    expect(await balance(iban)).toBe(1_120);
  });

  it('moves the balance once for ten concurrent identical debits, all answered with the same transaction', async () => {
    // 600 of 1 001: once the first is booked, the balance could not take the others; they are still replays.
    const iban = await account('same-ten', 1_000);
    const outcomes = await racing(iban, 1, () =>
      Promise.all(Array.from({ length: 10 }, () => settle(movements.book('DEBIT', input(iban, 600, 'ops_same_ten'))))),
    );
    expect(outcomes.map((o) => o.code)).toEqual(Array(10).fill(null));
    expect(new Set(outcomes.map((o) => o.result!.transaction.transactionId)).size).toBe(1);
    expect(outcomes.filter((o) => !o.result!.replayed)).toHaveLength(1);
    expect(outcomes.map((o) => o.result!.transaction.balanceAfter)).toEqual(Array(10).fill(401));
    expect(await balance(iban)).toBe(401);
    expect(await rows(iban)).toHaveLength(1);
  });

  it('never takes the balance below zero under ten concurrent debits of more than half of it, and books from the newest balance', async () => {
    const iban = await account('half-ten', 1_000);
    const outcomes = await racing(iban, 1, () =>
      Promise.all(
        Array.from({ length: 10 }, (_, i) => settle(movements.book('DEBIT', input(iban, 501, `ops_half_ten_${i}`)))),
      ),
    );
    expect(outcomes.filter((o) => o.code === null).map((o) => o.result!.transaction.balanceAfter)).toEqual([500]);
    expect(outcomes.filter((o) => o.code === 'INSUFFICIENT_FUNDS')).toHaveLength(9);
    expect(await balance(iban)).toBe(500);
    expect((await rows(iban)).map((row) => row.balanceAfter)).toEqual([500]);
  });

  it('leaves no trace of a refused debit: the same reference books once a credit has topped the account up', async () => {
    const iban = await account('top-up', 100);
    await expect(movements.book('DEBIT', input(iban, 150, 'ops_top_up'))).rejects.toMatchObject({
      status: 422,
      code: 'INSUFFICIENT_FUNDS',
    });
    expect(await rows(iban)).toEqual([]);
    expect(await balance(iban)).toBe(100);
    await movements.book('CREDIT', input(iban, 100, 'stl_top_up'));
    const booked = await movements.book('DEBIT', input(iban, 150, 'ops_top_up'));
    expect(booked).toMatchObject({
      replayed: false,
      transaction: { reference: 'ops_top_up', amount: 150, balanceAfter: 50 },
    });
    expect(await balance(iban)).toBe(50);
    expect(await rows(iban)).toHaveLength(2);
  });

  it('refuses a credit past the safe-integer range with BALANCE_LIMIT and leaves no trace', async () => {
    const iban = await account('limit', Number.MAX_SAFE_INTEGER - 10);
    await expect(movements.book('CREDIT', input(iban, 11, 'stl_limit'))).rejects.toMatchObject({
      status: 422,
      code: 'BALANCE_LIMIT',
    });
    expect(await rows(iban)).toEqual([]);
    expect(await movements.book('CREDIT', input(iban, 10, 'stl_limit'))).toMatchObject({
      replayed: false,
      transaction: { balanceAfter: Number.MAX_SAFE_INTEGER },
    });
    // Booked before: a retry is a replay even though the balance could not take it now.
    expect(await movements.book('CREDIT', input(iban, 10, 'stl_limit'))).toMatchObject({
      replayed: true,
      transaction: { balanceAfter: Number.MAX_SAFE_INTEGER },
    });
    expect(await balance(iban)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('replays a booked debit that the balance could no longer take, and refuses the reference with another amount, IBAN or currency', async () => {
    const iban = await account('dup', 1_000);
    const usd = await account('dup', 1_000, 'USD');
    const first = await movements.book('DEBIT', input(iban, 800, 'ops_dup'));
    expect(await movements.book('DEBIT', input(iban, 800, 'ops_dup'))).toEqual({ ...first, replayed: true });
    for (const [amount, target, currency] of [
      [801, iban, 'LYD'],
      [100, iban, 'LYD'],
      [800, usd, 'USD'],
    ] as const) {
      await expect(movements.book('DEBIT', input(target, amount, 'ops_dup', currency))).rejects.toMatchObject({
        status: 409,
        code: 'DUPLICATE_REFERENCE',
        message: 'reference ops_dup was already used with a different iban, amount or currency',
      });
    }
    expect(await balance(iban)).toBe(200);
    expect(await balance(usd)).toBe(1_000);
    expect(await rows(iban)).toHaveLength(1);
  });

  it('refuses an unknown account and an account of another currency, as before', async () => {
    const iban = await account('cur', 1_000);
    await expect(
      movements.book('DEBIT', input('LY60 0110 0100 0000 0000 0000 1', 1, 'ops_unknown')),
    ).rejects.toMatchObject({
      status: 404,
      code: 'ACCOUNT_NOT_FOUND',
      message: 'no account LY60011001000000000000001 at this bank',
    });
    await expect(movements.book('CREDIT', input(iban.toLowerCase(), 5, 'ops_cur', 'USD'))).rejects.toMatchObject({
      status: 422,
      code: 'CURRENCY_MISMATCH',
      message: `currency: account ${iban} is held in LYD, not USD`,
    });
    expect(await rows(iban)).toEqual([]);
  });
});
