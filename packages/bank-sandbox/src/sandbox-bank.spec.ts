import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestDatabase } from '@gateway/db/testing';
import { openDatabase, type Database } from '@gateway/db';
import { call, startTestBank, TEST_INTERNAL_KEY } from './testing/support';

describe('startSandboxBank', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(() => db.close());

  it('keeps the ledger across a restart (new pool, new ORM), without duplicating seeded accounts', async () => {
    // A database that outlives its connections: a PostgreSQL test database, or PGlite on disk.
    const dir = mkdtempSync(join(tmpdir(), 'gw-sandbox-'));
    const reopen = () => openDatabase(process.env.DATABASE_URL ? { url: db.url } : { dataDir: dir });
    let own = await reopen();
    let bank = await startTestBank(own, { handle: 'persist', institutionCode: '006' });
    const opened = await bank.openAccount({
      customerRef: 'cust-p',
      holderName: 'Persist',
      currency: 'LYD',
      balance: 5_000,
    });
    await bank.setOtp('cust-p', '424242');
    const first = await call(bank, 'POST', '/accounts/debit', {
      iban: opened.iban,
      amount: 1_000,
      currency: 'LYD',
      reference: 'ops_persist',
      description: 'd',
    });
    await bank.stop();
    await own.close();

    own = await reopen();
    bank = await startTestBank(own, { handle: 'persist', institutionCode: '006' });
    try {
      // the launcher seeds again after a restart: same account, balance untouched
      const reseeded = await bank.openAccount({
        customerRef: 'cust-p',
        holderName: 'Persist',
        currency: 'LYD',
        balance: 5_000,
      });
      expect(reseeded).toEqual({ ...opened, balance: 4_000 });
      expect((await call(bank, 'POST', '/customers/verify', { customer_ref: 'cust-p', otp: '424242' })).status).toBe(
        200,
      );
      const replay = await call(bank, 'POST', '/accounts/debit', {
        iban: opened.iban,
        amount: 1_000,
        currency: 'LYD',
        reference: 'ops_persist',
        description: 'd',
      });
      expect(replay.body).toEqual(first.body);
      expect((await bank.getAccount(opened.iban))?.balance).toBe(4_000);
      expect(await bank.transactions(opened.iban)).toHaveLength(1);
    } finally {
      await bank.stop();
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps banks sharing one database apart by handle', async () => {
    const [a, b] = await Promise.all([
      startTestBank(db, { handle: 'sharea', institutionCode: '007' }),
      startTestBank(db, { handle: 'shareb', institutionCode: '008' }),
    ]);
    try {
      const acc = await a.openAccount({ customerRef: 'same-ref', holderName: 'A', currency: 'LYD', balance: 100 });
      await a.setOtp('same-ref', '1111');
      expect(await b.getAccount(acc.iban)).toBeNull();
      expect((await call(b, 'GET', `/accounts/${acc.iban}`)).status).toBe(404);
      expect((await call(b, 'POST', '/customers/verify', { customer_ref: 'same-ref', otp: '1111' })).status).toBe(401);
      // same reference at two banks: two bookings
      await b.openAccount({ customerRef: 'same-ref', holderName: 'B', currency: 'LYD', balance: 100 });
      const bAcc = await b.openAccount({ customerRef: 'same-ref', holderName: 'B', currency: 'LYD', balance: 100 });
      expect(
        (
          await call(a, 'POST', '/accounts/debit', {
            iban: acc.iban,
            amount: 1,
            currency: 'LYD',
            reference: 'ops_shared',
            description: '',
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(b, 'POST', '/accounts/debit', {
            iban: bAcc.iban,
            amount: 1,
            currency: 'LYD',
            reference: 'ops_shared',
            description: '',
          })
        ).status,
      ).toBe(200);
      expect((await b.getAccount(bAcc.iban))?.balance).toBe(99);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('releases a hung request when it stops', async () => {
    const bank = await startTestBank(db, { handle: 'hangstop', institutionCode: '009' });
    bank.injectFaults({ hang: true });
    const pending = call(bank, 'GET', '/accounts/LY60002001048000000000001').then(
      () => 'answered',
      () => 'dropped',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await bank.stop();
    expect(await pending).toBe('dropped');
  });

  it('refuses bad options at start', async () => {
    await expect(startTestBank(db, { institutionCode: '12' })).rejects.toThrow('3 digits');
    await expect(startTestBank(db, { handle: 'Bad Handle' })).rejects.toThrow('handle');
    await expect(startTestBank(db, { internalKey: 'short' })).rejects.toThrow('internalKey');
    expect(TEST_INTERNAL_KEY.length).toBeGreaterThan(8);
  });
});
