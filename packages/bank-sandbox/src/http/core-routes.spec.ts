import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import { parseIban } from '@gateway/kernel';
import type { SandboxBank } from '../sandbox-bank';
import { call, startTestBank } from '../testing/support';

describe('sandbox bank core interface', () => {
  let db: Database;
  let bank: SandboxBank;
  let now = new Date('2025-03-10T12:00:00.000Z');

  beforeAll(async () => {
    db = await openTestDatabase();
    bank = await startTestBank(db, { handle: 'bank1', institutionCode: '001', clock: () => now });
  });
  afterAll(async () => {
    await bank.stop();
    await db.close();
  });

  const account = (customerRef: string, balance: number, currency = 'LYD') =>
    bank.openAccount({ customerRef, holderName: `Holder ${customerRef}`, currency, balance });
  const debit = (iban: string, amount: number, reference: string, currency = 'LYD') =>
    call(bank, 'POST', '/accounts/debit', { iban, amount, currency, reference, description: 'test debit' });

  describe('X-Service-Internal-Key', () => {
    it('refuses a call without the key, or with a wrong one, with 401', async () => {
      const acc = await account('key-check', 100);
      const missing = await call(bank, 'GET', `/accounts/${acc.iban}`, undefined, null);
      const wrong = await call(bank, 'GET', `/accounts/${acc.iban}`, undefined, 'sik_wrong_key_but_long_enough');
      expect(missing.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ error: { code: 'INVALID_INTERNAL_KEY', message: expect.any(String) } });
      const admin = await call(bank, 'GET', '/sandbox/ledger', undefined, null);
      expect(admin.status).toBe(401);
      expect((await call(bank, 'GET', `/accounts/${acc.iban}`)).status).toBe(200);
    });

    it('leaves only the health probe open', async () => {
      const health = await call(bank, 'GET', '/healthz', undefined, null);
      expect(health).toMatchObject({ status: 200, body: { status: 'ok', bank_handle: 'bank1' } });
    });
  });

  describe('POST /customers/verify', () => {
    it('answers {verified: true} for the right OTP and 401 otherwise', async () => {
      await bank.setOtp('cust-otp', '123456');
      const right = await call(bank, 'POST', '/customers/verify', { customer_ref: 'cust-otp', otp: '123456' });
      const wrong = await call(bank, 'POST', '/customers/verify', { customer_ref: 'cust-otp', otp: '654321' });
      const unknown = await call(bank, 'POST', '/customers/verify', { customer_ref: 'nobody', otp: '123456' });
      expect(right).toMatchObject({ status: 200, body: { verified: true } });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('OTP_INVALID');
      expect(unknown.status).toBe(401);
    });
  });

  describe('accounts', () => {
    it('opens accounts with valid LY IBANs carrying the institution code, idempotently per customer and currency', async () => {
      const first = await account('cust-open', 5_000);
      const again = await bank.openAccount({
        customerRef: 'cust-open',
        holderName: 'Other Name',
        currency: 'LYD',
        balance: 1,
      });
      const usd = await account('cust-open', 700, 'USD');
      expect(parseIban(first.iban)).toMatchObject({ countryCode: 'LY', institutionCode: '001' });
      expect(first.iban).toHaveLength(25);
      expect(again).toEqual(first);
      expect(usd.iban).not.toBe(first.iban);
    });

    it('GET /accounts/{iban} shows holder, customer, balance and currency; 404 for an unknown IBAN', async () => {
      const acc = await account('cust-get', 12_345);
      const found = await call(bank, 'GET', `/accounts/${acc.iban}`);
      expect(found).toMatchObject({
        status: 200,
        body: {
          iban: acc.iban,
          holder_name: 'Holder cust-get',
          customer_ref: 'cust-get',
          balance: 12_345,
          currency: 'LYD',
        },
      });
      const missing = await call(bank, 'GET', '/accounts/LY60002001048000000000001');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('ACCOUNT_NOT_FOUND');
    });
  });

  describe('POST /accounts/debit and /accounts/credit', () => {
    it('debits and credits, answering the transaction with the balance after', async () => {
      const acc = await account('cust-move', 10_000);
      const debited = await debit(acc.iban, 2_500, 'ops_move_1');
      expect(debited).toMatchObject({
        status: 200,
        body: { reference: 'ops_move_1', iban: acc.iban, amount: 2_500, currency: 'LYD', balance_after: 7_500 },
      });
      expect(debited.body.transaction_id).toMatch(/^txn_/);
      expect(new Date(debited.body.booked_at).toISOString()).toBe(debited.body.booked_at);
      const credited = await call(bank, 'POST', '/accounts/credit', {
        iban: acc.iban,
        amount: 1_000,
        currency: 'LYD',
        reference: 'ops_move_2',
        description: 'refund',
      });
      expect(credited).toMatchObject({ status: 200, body: { amount: 1_000, balance_after: 8_500 } });
      expect((await bank.getAccount(acc.iban))?.balance).toBe(8_500);
    });

    it('refuses a debit above the balance with 422 INSUFFICIENT_FUNDS and moves nothing', async () => {
      const acc = await account('cust-poor', 100);
      const answer = await debit(acc.iban, 101, 'ops_poor');
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('INSUFFICIENT_FUNDS');
      expect((await bank.getAccount(acc.iban))?.balance).toBe(100);
      expect(await bank.transactions(acc.iban)).toEqual([]);
    });

    it('answers 404 ACCOUNT_NOT_FOUND for an unknown IBAN', async () => {
      const answer = await debit('LY60002001048000000000001', 1, 'ops_unknown');
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('ACCOUNT_NOT_FOUND');
    });

    it.each([
      ['a zero amount', { amount: 0 }],
      ['a negative amount', { amount: -5 }],
      ['a fractional amount', { amount: 1.5 }],
      ['an amount past the safe-integer range', { amount: 2 ** 53 }],
      ['a string amount', { amount: '10' }],
      ['an unknown currency', { currency: 'GBP' }],
      ['a missing reference', { reference: undefined }],
    ])('answers 400 for %s', async (_label, change) => {
      const acc = await account('cust-bad', 1_000);
      const body = { iban: acc.iban, amount: 10, currency: 'LYD', reference: 'ops_bad', description: 'x', ...change };
      const answer = await call(bank, 'POST', '/accounts/debit', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect((await bank.getAccount(acc.iban))?.balance).toBe(1_000);
    });

    it('answers 422 CURRENCY_MISMATCH for another currency than the account, booking nothing', async () => {
      const acc = await account('cust-cur', 1_000);
      const body = { iban: acc.iban, amount: 10, currency: 'USD', reference: 'ops_cur', description: 'x' };
      const answer = await call(bank, 'POST', '/accounts/debit', body);
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('CURRENCY_MISMATCH');
      expect((await bank.getAccount(acc.iban))?.balance).toBe(1_000);
    });
  });

  describe('deduplication by (operation, reference)', () => {
    it('answers a retried debit with the first answer and moves the money once', async () => {
      const acc = await account('cust-dedup', 1_000);
      const first = await debit(acc.iban, 300, 'ops_dedup');
      const second = await debit(acc.iban, 300, 'ops_dedup');
      expect(second).toMatchObject({ status: 200, body: first.body });
      expect((await bank.getAccount(acc.iban))?.balance).toBe(700);
      // a credit with the same reference is another operation
      const credit = await call(bank, 'POST', '/accounts/credit', {
        iban: acc.iban,
        amount: 300,
        currency: 'LYD',
        reference: 'ops_dedup',
        description: 'reversal',
      });
      expect(credit.body.transaction_id).not.toBe(first.body.transaction_id);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(1_000);
    });

    it('refuses the same reference with another amount or IBAN with 409', async () => {
      const acc = await account('cust-conflict', 1_000);
      const other = await account('cust-conflict-2', 1_000);
      expect((await debit(acc.iban, 100, 'ops_conflict')).status).toBe(200);
      const otherAmount = await debit(acc.iban, 101, 'ops_conflict');
      const otherIban = await debit(other.iban, 100, 'ops_conflict');
      expect(otherAmount.status).toBe(409);
      expect(otherAmount.body.error.code).toBe('DUPLICATE_REFERENCE');
      expect(otherIban.status).toBe(409);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(900);
      expect((await bank.getAccount(other.iban))?.balance).toBe(1_000);
    });

    it('books ten concurrent identical debits once, all answered with the same transaction', async () => {
      const acc = await account('cust-race', 10_000);
      const answers = await Promise.all(Array.from({ length: 10 }, () => debit(acc.iban, 1_234, 'ops_race')));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(new Set(answers.map((a) => a.body.transaction_id)).size).toBe(1);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(10_000 - 1_234);
      expect(await bank.transactions(acc.iban)).toHaveLength(1);
    });

    it('never overdraws under concurrent debits with different references', async () => {
      const acc = await account('cust-drain', 1_000);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => debit(acc.iban, 300, `ops_drain_${i}`)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      expect(answers.filter((a) => a.status === 422)).toHaveLength(7);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(100);
    });
  });

  describe('GET /accounts/{iban}/transactions', () => {
    it('lists the transactions booked between two dates (UTC), newest first', async () => {
      const acc = await account('cust-statement', 10_000);
      now = new Date('2025-03-01T23:30:00.000Z');
      await debit(acc.iban, 100, 'ops_march_1');
      now = new Date('2025-03-02T00:30:00.000Z');
      await call(bank, 'POST', '/accounts/credit', {
        iban: acc.iban,
        amount: 50,
        currency: 'LYD',
        reference: 'ops_march_2',
        description: 'in',
      });
      now = new Date('2025-03-05T10:00:00.000Z');
      await debit(acc.iban, 200, 'ops_march_5');

      const window = await call(
        bank,
        'GET',
        `/accounts/${acc.iban}/transactions?fromDate=2025-03-02&toDate=2025-03-05`,
      );
      expect(window.status).toBe(200);
      expect(window.body.iban).toBe(acc.iban);
      expect(window.body.transactions).toEqual([
        expect.objectContaining({
          reference: 'ops_march_5',
          booking_date: '2025-03-05',
          amount: 200,
          currency: 'LYD',
          credit_debit_indicator: 'DEBIT',
          description: 'test debit',
        }),
        expect.objectContaining({
          reference: 'ops_march_2',
          booking_date: '2025-03-02',
          amount: 50,
          credit_debit_indicator: 'CREDIT',
          description: 'in',
        }),
      ]);
      expect(window.body.transactions[0].transaction_id).toMatch(/^txn_/);
      const oneDay = await call(
        bank,
        'GET',
        `/accounts/${acc.iban}/transactions?fromDate=2025-03-01&toDate=2025-03-01`,
      );
      expect(oneDay.body.transactions.map((t: { reference: string }) => t.reference)).toEqual(['ops_march_1']);
      const all = await call(bank, 'GET', `/accounts/${acc.iban}/transactions`);
      expect(all.body.transactions).toHaveLength(3);
    });

    it.each([
      ['a malformed date', 'fromDate=2025-3-1&toDate=2025-03-05'],
      ['an impossible date', 'fromDate=2025-02-30&toDate=2025-03-05'],
      ['fromDate after toDate', 'fromDate=2025-03-06&toDate=2025-03-05'],
    ])('answers 400 for %s', async (_label, query) => {
      const acc = await account('cust-dates', 0);
      const answer = await call(bank, 'GET', `/accounts/${acc.iban}/transactions?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('answers 404 for an unknown account', async () => {
      const answer = await call(
        bank,
        'GET',
        '/accounts/LY60002001048000000000001/transactions?fromDate=2025-01-01&toDate=2025-01-02',
      );
      expect(answer.status).toBe(404);
    });
  });
});
