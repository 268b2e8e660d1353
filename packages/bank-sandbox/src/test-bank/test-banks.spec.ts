import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { GatewayError } from '@gateway/kernel';
import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import { newLyIban } from '../iban';
import type { SandboxBank } from '../sandbox-bank';
import { call as callBank, silentLogger, startTestBank, type Answer } from '../testing/support';
import type { CreditConfirmedBody } from './confirm-link';
import { TEST_OTP, TEST_PAYERS, testPayerIban, type TestPayerBehaviour } from './payers';
import { startTestBanks, type TestBanks } from './test-banks';

interface Confirmed {
  handle: string;
  body: CreditConfirmedBody;
  at: number;
}

const oasis = { handle: 'oasis', institutionCode: '011' };
const dunes = { handle: 'dunes', institutionCode: '012' };
const payerIban = (name: TestPayerBehaviour, bank = oasis) =>
  testPayerIban(
    TEST_PAYERS.find((payer) => payer.name === name)!,
    bank.institutionCode,
  );

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('built-in test bank', () => {
  let db: Database;
  let banks: TestBanks;
  const confirmed: Confirmed[] = [];
  let seq = 0;
  const ref = (label: string) => `ops_${label}_${(seq += 1)}`;

  /** One HTTP call to a handle's test core, with its internal key unless told otherwise. */
  const call = (
    on: TestBanks,
    bank: { handle: string; institutionCode: string },
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    key?: string | null,
  ): Promise<Answer> => {
    const core = on.core(bank);
    return callBank({ url: core.baseUrl }, method, path, body, key === undefined ? core.internalKey : key);
  };
  const debit = (iban: string, amount: number, reference: string, bank = oasis, on = banks, currency = 'LYD') =>
    call(on, bank, 'POST', '/accounts/debit', { iban, amount, currency, reference, description: 'test debit' });
  const credit = (iban: string, amount: number, reference: string, bank = dunes, on = banks) =>
    call(on, bank, 'POST', '/accounts/credit', {
      iban,
      amount,
      currency: 'LYD',
      reference,
      description: 'test credit',
    });

  beforeAll(async () => {
    db = await openTestDatabase();
    banks = await startTestBanks({
      db,
      logger: silentLogger,
      confirm: async (handle, body) => {
        confirmed.push({ handle, body, at: Date.now() });
      },
      confirmDelayMs: { min: 5, max: 20 },
      lateConfirmDelayMs: 800,
    });
  });

  afterAll(async () => {
    await banks.stop();
    await db.close();
  });

  describe('handles and keys', () => {
    it('serves every handle under /banks/<handle> of one server, with one key; core() is idempotent', () => {
      const first = banks.core(oasis);
      expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/banks\/oasis$/);
      expect(first.internalKey).toMatch(/^sik_test_.{20,}/);
      expect(banks.core(oasis)).toEqual(first);
      const other = banks.core(dunes);
      expect(other.baseUrl.replace('/banks/dunes', '')).toBe(first.baseUrl.replace('/banks/oasis', ''));
      expect(other.internalKey).toBe(first.internalKey);
      expect(() => banks.core({ handle: 'Bad Handle', institutionCode: '011' })).toThrow(/handle/);
      expect(() => banks.core({ handle: 'okbank', institutionCode: '11' })).toThrow(/institutionCode/);
    });

    it('requires the internal key on every core call (401 INVALID_INTERNAL_KEY)', async () => {
      const iban = payerIban('success');
      const missing = await call(banks, oasis, 'GET', `/accounts/${iban}`, undefined, null);
      const wrong = await call(banks, oasis, 'GET', `/accounts/${iban}`, undefined, 'sik_test_not_the_right_key_000');
      const verify = await call(
        banks,
        oasis,
        'POST',
        '/customers/verify',
        { customer_ref: 'test-success', otp: TEST_OTP },
        null,
      );
      expect([missing.status, wrong.status, verify.status]).toEqual([401, 401, 401]);
      expect(wrong.body).toEqual({ error: { code: 'INVALID_INTERNAL_KEY', message: expect.any(String) } });
      expect(await banks.balance('oasis', iban)).toBeNull(); // a refused call opens nothing
      expect((await call(banks, oasis, 'GET', `/accounts/${iban}`)).status).toBe(200);
    });

    it('answers 404 for a handle core() did not register, and 401 for another process key', async () => {
      const core = banks.core(oasis);
      const stranger = await callBank(
        { url: core.baseUrl.replace('/banks/oasis', '/banks/nowhere') },
        'GET',
        `/accounts/${newLyIban('011')}`,
        undefined,
        core.internalKey,
      );
      expect(stranger.status).toBe(404);
      expect(stranger.body.error.code).toBe('NOT_FOUND');
      const other = await startTestBanks({ db, logger: silentLogger });
      try {
        expect(other.core(oasis).internalKey).not.toBe(core.internalKey);
        expect(
          (await call(other, oasis, 'GET', `/accounts/${newLyIban('011')}`, undefined, core.internalKey)).status,
        ).toBe(401);
      } finally {
        await other.stop();
      }
    });
  });

  describe('permissive like a test mode', () => {
    it('opens an IBAN it never saw with the default test balance, in the currency asked (LYD on a read)', async () => {
      const read = newLyIban('011');
      const got = await call(banks, oasis, 'GET', `/accounts/${read}`);
      expect(got).toMatchObject({ status: 200, body: { iban: read, balance: 100_000_000, currency: 'LYD' } });

      const usd = newLyIban('001'); // another bank's code: any valid IBAN
      const debited = await debit(usd, 2_500, ref('usd'), oasis, banks, 'USD');
      expect(debited).toMatchObject({ status: 200, body: { iban: usd, currency: 'USD', balance_after: 99_997_500 } });

      const credited = newLyIban('012');
      expect((await credit(credited, 700, 'stl_open_on_credit')).body.balance_after).toBe(100_000_700);

      const listed = newLyIban('011');
      expect(await call(banks, oasis, 'GET', `/accounts/${listed}/transactions`)).toMatchObject({
        status: 200,
        body: { iban: listed, transactions: [] },
      });
      expect(await banks.balance('oasis', listed)).toBe(100_000_000);
    });

    it('still answers 404 ACCOUNT_NOT_FOUND for something that is no IBAN', async () => {
      const answer = await debit('LY00BOGUS', 1, ref('bogus'));
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('ACCOUNT_NOT_FOUND');
    });

    it('verifies any customer it does not know with exactly the test OTP', async () => {
      expect(
        await call(banks, oasis, 'POST', '/customers/verify', { customer_ref: 'real-customer-42', otp: TEST_OTP }),
      ).toMatchObject({ status: 200, body: { verified: true } });
      const wrong = await call(banks, oasis, 'POST', '/customers/verify', {
        customer_ref: 'real-customer-42',
        otp: '654321',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('OTP_INVALID');
    });

    it('keeps its ledger apart from the sandbox banks, even for the same handle and IBAN', async () => {
      const sandbox: SandboxBank = await startTestBank(db, { handle: 'oasis', institutionCode: '011' });
      try {
        const iban = payerIban('success');
        await sandbox.openAccount({
          customerRef: 'sandbox-cust',
          holderName: 'Sandbox',
          currency: 'LYD',
          balance: 500,
          iban,
        });
        expect((await debit(iban, 100, ref('apart'))).status).toBe(200);
        expect((await sandbox.getAccount(iban))?.balance).toBe(500);
        expect(await banks.balance('oasis', iban)).toBeLessThan(100_000_000);
        expect(await sandbox.transactions(iban)).toEqual([]);
        expect((await callBank(sandbox, 'GET', `/accounts/${iban}`)).body.balance).toBe(500);
        // and what the test bank opened does not exist at the sandbox bank
        const testOnly = newLyIban('011');
        await call(banks, oasis, 'GET', `/accounts/${testOnly}`);
        expect(await sandbox.getAccount(testOnly)).toBeNull();
      } finally {
        await sandbox.stop();
      }
    });

    it('agrees with another startTestBanks on the same database: state is in the ledger', async () => {
      const other = await startTestBanks({ db, logger: silentLogger });
      try {
        const iban = newLyIban('011');
        const reference = ref('shared');
        const first = await debit(iban, 1_000, reference);
        const replay = await debit(iban, 1_000, reference, oasis, other);
        expect(replay).toMatchObject({
          status: 200,
          body: { transaction_id: first.body.transaction_id, balance_after: 99_999_000 },
        });
        expect((await call(other, oasis, 'GET', `/accounts/${iban}`)).body.balance).toBe(99_999_000);
        expect(await other.balance('oasis', iban)).toBe(await banks.balance('oasis', iban));
        await debit(iban, 500, ref('shared'), oasis, other);
        expect(await banks.balance('oasis', iban)).toBe(99_998_500);
        expect((await banks.transactions('oasis', iban)).map((line) => line.amount)).toEqual([500, 1_000]);
      } finally {
        await other.stop();
      }
    });
  });

  describe('test payers', () => {
    it('success: OTP 123456, and a payment across banks is debited, credited and confirmed', async () => {
      const payer = payerIban('success');
      const merchant = newLyIban('012');
      expect(
        (await call(banks, oasis, 'POST', '/customers/verify', { customer_ref: 'test-success', otp: TEST_OTP })).status,
      ).toBe(200);
      expect(
        (await call(banks, oasis, 'POST', '/customers/verify', { customer_ref: 'test-success', otp: '000000' })).status,
      ).toBe(401);
      const reference = ref('success');
      const before = (await banks.balance('oasis', payer)) ?? 100_000_000;
      expect((await debit(payer, 4_200, reference)).status).toBe(200);
      expect((await credit(merchant, 4_200, reference)).status).toBe(200);
      expect(await banks.balance('oasis', payer)).toBe(before - 4_200);
      expect(await banks.balance('dunes', merchant)).toBe(100_004_200);
      await waitUntil(() => confirmed.some((entry) => entry.body.payment_reference === reference));
      const confirmation = confirmed.find((entry) => entry.body.payment_reference === reference)!;
      expect(confirmation.handle).toBe('dunes');
      expect(confirmation.body).toEqual({
        payment_reference: reference,
        session_id: reference,
        creditor_iban: merchant,
        amount: 4_200,
        currency: 'LYD',
        rrn: expect.stringMatching(/^\d{12}$/),
      });
      await waitUntil(async () => (await banks.transactions('dunes', merchant))[0]?.confirmationStatus === 'CONFIRMED');
    });

    it('confirms only rail credits: not a same-bank payment, a reversal or a settlement', async () => {
      const payer = payerIban('success');
      const sameBank = ref('samebank');
      await debit(payer, 10, sameBank);
      await credit(newLyIban('011'), 10, sameBank, oasis);
      await credit(payer, 10, `${sameBank}:reversal`, oasis);
      await credit(newLyIban('012'), 10, 'stl_settlement_1');
      await sleep(200);
      const references = confirmed.map((entry) => entry.body.payment_reference);
      expect(references).not.toContain(sameBank);
      expect(references).not.toContain(`${sameBank}:reversal`);
      expect(references).not.toContain('stl_settlement_1');
    });

    it('wrong-otp: every OTP is refused as a wrong one (401 OTP_INVALID)', async () => {
      for (const otp of [TEST_OTP, '000000', 'anything']) {
        const answer = await call(banks, oasis, 'POST', '/customers/verify', { customer_ref: 'test-wrong-otp', otp });
        expect(answer.status).toBe(401);
        expect(answer.body.error.code).toBe('OTP_INVALID');
      }
    });

    it('insufficient: balance 0, every debit refused with 422 INSUFFICIENT_FUNDS, even after a credit', async () => {
      const payer = payerIban('insufficient');
      const refused = await debit(payer, 1, ref('poor'));
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('INSUFFICIENT_FUNDS');
      expect((await call(banks, oasis, 'GET', `/accounts/${payer}`)).body).toMatchObject({
        balance: 0,
        customer_ref: 'test-insufficient',
      });
      await credit(payer, 50, 'stl_topup', oasis);
      expect((await debit(payer, 1, ref('poor'))).status).toBe(422);
      expect((await banks.transactions('oasis', payer)).filter((line) => line.operation === 'DEBIT')).toEqual([]);
    });

    it('timeout: the first debit is booked and never answered; the replay answers it, debited once', async () => {
      const payer = payerIban('timeout');
      const reference = ref('timeout');
      const core = banks.core(oasis);
      const body = JSON.stringify({ iban: payer, amount: 300, currency: 'LYD', reference, description: 'test debit' });
      const send = (timeoutMs: number) =>
        request(`${core.baseUrl}/accounts/debit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-internal-key': core.internalKey },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
      await expect(send(400)).rejects.toThrow();
      expect(await banks.balance('oasis', payer)).toBe(100_000_000 - 300);
      const replay = await send(5_000);
      expect(replay.statusCode).toBe(200);
      const answer = (await replay.body.json()) as { transaction_id: string; balance_after: number };
      expect(answer.balance_after).toBe(100_000_000 - 300);
      expect(await banks.balance('oasis', payer)).toBe(100_000_000 - 300);
      expect((await banks.transactions('oasis', payer)).map((line) => line.transactionId)).toEqual([
        answer.transaction_id,
      ]);
    });

    it('unknown: every debit answer is a 500 after booking; the statement shows the booking', async () => {
      const payer = payerIban('unknown');
      const reference = ref('unknown');
      const first = await debit(payer, 900, reference);
      const replay = await debit(payer, 900, reference);
      expect([first.status, replay.status]).toEqual([500, 500]);
      expect(first.body.error.code).toBe('INTERNAL_ERROR');
      expect(await banks.balance('oasis', payer)).toBe(100_000_000 - 900);
      const statement = await call(banks, oasis, 'GET', `/accounts/${payer}/transactions`);
      expect(statement.body.transactions).toEqual([
        expect.objectContaining({ reference, amount: 900, credit_debit_indicator: 'DEBIT' }),
      ]);
    });

    it('credit-refused: its debit succeeds, the payee credit is refused with a non-funds 4xx, its reversal is booked', async () => {
      const payer = payerIban('credit-refused');
      const reference = ref('refused');
      expect((await debit(payer, 1_234, reference)).status).toBe(200);
      const refused = await credit(newLyIban('012'), 1_234, reference);
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({ error: { code: 'ACCOUNT_CLOSED', message: expect.any(String) } });
      // within the same bank too: the lookup is by reference across the handles
      expect((await credit(newLyIban('011'), 1_234, reference, oasis)).body.error.code).toBe('ACCOUNT_CLOSED');
      expect((await credit(payer, 1_234, `${reference}:reversal`, oasis)).status).toBe(200);
      expect(await banks.balance('oasis', payer)).toBe(100_000_000);
      await sleep(100);
      expect(confirmed.map((entry) => entry.body.payment_reference)).not.toContain(reference);
    });

    it('late-confirm: the payment succeeds, its credit-confirmed comes only after lateConfirmDelayMs', async () => {
      const payer = payerIban('late-confirm');
      const merchant = newLyIban('012');
      const reference = ref('late');
      expect((await debit(payer, 77, reference)).status).toBe(200);
      const booked = Date.now();
      expect((await credit(merchant, 77, reference)).status).toBe(200);
      await sleep(300);
      expect(confirmed.map((entry) => entry.body.payment_reference)).not.toContain(reference);
      await waitUntil(() => confirmed.some((entry) => entry.body.payment_reference === reference));
      expect(confirmed.find((entry) => entry.body.payment_reference === reference)!.at - booked).toBeGreaterThanOrEqual(
        750,
      );
    });
  });

  describe('credit-confirmed', () => {
    it('is retried when confirm() fails, and a 4xx refusal of the gateway is final', async () => {
      const calls: string[] = [];
      const flaky = await startTestBanks({
        db,
        logger: silentLogger,
        confirmDelayMs: { min: 0, max: 0 },
        confirm: async (_handle, body) => {
          calls.push(body.payment_reference);
          if (body.payment_reference.startsWith('ops_refuse')) throw new GatewayError('SESSION_NOT_FOUND');
          if (calls.filter((reference) => reference === body.payment_reference).length === 1)
            throw new Error('gateway busy');
        },
      });
      const flakyBank = { handle: 'flakybank', institutionCode: '013' };
      try {
        const merchant = newLyIban('013');
        await credit(merchant, 5, 'ops_retry_1', flakyBank, flaky);
        await waitUntil(
          async () => (await flaky.transactions('flakybank', merchant))[0]?.confirmationStatus === 'CONFIRMED',
        );
        expect(calls.filter((reference) => reference === 'ops_retry_1')).toHaveLength(2);
        await credit(merchant, 5, 'ops_refuse_1', flakyBank, flaky);
        await waitUntil(
          async () => (await flaky.transactions('flakybank', merchant))[0]?.confirmationStatus === 'REJECTED',
        );
        expect(calls.filter((reference) => reference === 'ops_refuse_1')).toHaveLength(1);
      } finally {
        await flaky.stop();
      }
    });

    it('is never sent without confirm(): the rail credit stays PENDING', async () => {
      const quiet = await startTestBanks({ db, logger: silentLogger, confirmDelayMs: { min: 0, max: 0 } });
      const quietBank = { handle: 'quietbank', institutionCode: '014' };
      try {
        const merchant = newLyIban('014');
        expect((await credit(merchant, 5, 'ops_quiet_1', quietBank, quiet)).status).toBe(200);
        await sleep(200);
        expect((await quiet.transactions('quietbank', merchant))[0]).toMatchObject({
          confirmationStatus: 'PENDING',
          confirmationAttempts: 0,
        });
        expect(confirmed.map((entry) => entry.body.payment_reference)).not.toContain('ops_quiet_1');
      } finally {
        await quiet.stop();
      }
    });
  });
});
