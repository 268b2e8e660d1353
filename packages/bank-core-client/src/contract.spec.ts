import { newLyIban } from '@gateway/bank-sandbox';
import { createLogger } from '@gateway/kernel';
import { startMinimalCore, type MinimalCore, type MinimalCoreOptions } from '@gateway/bank-core-client/testing';
import {
  BankCoreError,
  createBankCoreClient,
  findBooking,
  type BankCoreClient,
  type BankCoreClientOptions,
} from './index';

/**
 * The contract (API-CONTRACT "Bank core interface") against a core written from the spec alone:
 * every branch is driven over real HTTP, faults queued in the minimal core.
 */
const KEY = 'sik_minimal_core_key_0123456789';

describe('bank-core client against a spec-only core', () => {
  let core: MinimalCore;
  let client: BankCoreClient;
  const started: MinimalCore[] = [];

  const makeClient = (url: string, overrides: Partial<BankCoreClientOptions> = {}): BankCoreClient =>
    createBankCoreClient({
      bankHandle: 'minimal',
      baseUrl: url,
      internalKey: KEY,
      timeoutMs: 1_000,
      retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
      // Room for three 1 s attempts and their backoff on a busy machine (at 3 s the third was cut short once in a full run beside other work).
      totalBudgetMs: 4_500,
      logger: createLogger('test', 'silent'),
      ...overrides,
    });
  const startCore = async (options: Partial<MinimalCoreOptions> = {}): Promise<MinimalCore> => {
    const started_ = await startMinimalCore({ internalKey: KEY, ...options });
    started.push(started_);
    return started_;
  };

  beforeAll(async () => {
    core = await startCore();
    client = makeClient(core.url);
  });
  afterAll(async () => {
    for (const c of started) await c.stop();
  });

  let seq = 0;
  const open = (balance: number, on: MinimalCore = core) => {
    const iban = newLyIban('004');
    seq += 1;
    on.openAccount(iban, { customerRef: `cust-${seq}`, otp: `otp-${seq}`, balance, name: `Holder ${seq}` });
    return { iban, customerRef: `cust-${seq}`, otp: `otp-${seq}` };
  };
  const debit = (iban: string, amount: number, reference: string, on: BankCoreClient = client) =>
    on.debit({ iban, amount, currency: 'LYD', reference, description: 'checkout' });
  const credit = (iban: string, amount: number, reference: string, on: BankCoreClient = client) =>
    on.credit({ iban, amount, currency: 'LYD', reference, description: 'payout' });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as BankCoreError,
    );

  describe('what is sent', () => {
    it("sends exactly the spec's fields, the internal key and a request id", async () => {
      const acc = open(1_000);
      const before = core.calls.length;
      await client.debit({
        iban: acc.iban,
        amount: 10,
        currency: 'LYD',
        reference: 'ops_sent1',
        description: 'd',
        requestId: 'req_traced',
      });
      await credit(acc.iban, 5, 'ops_sent2');
      // By path: on a loaded machine a slow first answer is replayed, so a call may appear twice.
      const sent = core.calls.slice(before);
      const debitCall = sent.find((call) => call.path === '/accounts/debit');
      const creditCall = sent.find((call) => call.path === '/accounts/credit');
      expect(debitCall!.body).toEqual({
        iban: acc.iban,
        amount: 10,
        currency: 'LYD',
        reference: 'ops_sent1',
        description: 'd',
      });
      expect(creditCall!.body).toEqual({
        iban: acc.iban,
        amount: 5,
        currency: 'LYD',
        reference: 'ops_sent2',
        description: 'payout',
      });
      expect(debitCall!.headers['x-service-internal-key']).toBe(KEY);
      expect(debitCall!.headers['x-request-id']).toBe('req_traced');
      expect(creditCall!.headers['x-request-id']).toMatch(/^req_/);
    });
  });

  describe('debit and credit: booked', () => {
    it('reads the spec-only 200 {status, transaction_id, reference} as booked (issue 8)', async () => {
      const acc = open(1_000);
      const debited = await debit(acc.iban, 300, 'ops_spec200');
      const entry = core.entries(acc.iban)[0]!;
      expect(debited).toEqual({ transactionId: entry.id, bookedAt: null, duplicate: false });
      await expect(credit(acc.iban, 100, 'ops_spec200b')).resolves.toMatchObject({
        transactionId: expect.stringMatching(/^tx_/),
        duplicate: false,
      });
      expect(core.balance(acc.iban)).toBe(800);
    });

    it.each([
      ['an empty body', ''],
      ['an HTML page', '<html><body>OK</body></html>'],
      ['garbage', '\u0000{not json'],
      ['a JSON array', '[1,2]'],
      ['fields of unexpected types', '{"transaction_id": {"x": 1}, "amount": null, "booked_at": "yesterday"}'],
    ])('reads a 2xx with %s as booked', async (_label, body) => {
      const acc = open(1_000);
      core.fail({ path: '/accounts/debit', kind: 'book-then-status', status: 200, body });
      await expect(debit(acc.iban, 10, `ops_body${seq}`)).resolves.toEqual({
        transactionId: null,
        bookedAt: null,
        duplicate: false,
      });
      expect(core.balance(acc.iban)).toBe(990);
    });

    it('keeps id and booked_at (or booking_date) when the core says them', async () => {
      const acc = open(1_000);
      core.fail({
        path: '/accounts/credit',
        kind: 'book-then-status',
        status: 201,
        body: JSON.stringify({
          id: 42,
          booking_date: '2025-03-10',
          amount: '10',
          currency: 'lyd',
          iban: acc.iban.replace(/(.{4})/g, '$1 ').toLowerCase(),
        }),
      });
      await expect(credit(acc.iban, 10, 'ops_idvariant')).resolves.toEqual({
        transactionId: '42',
        bookedAt: '2025-03-10T00:00:00.000Z',
        duplicate: false,
      });
    });

    it.each([
      ['reference', { reference: 'ops_someone_else' }],
      ['amount', { amount: 11 }],
      ['currency', { currency: 'USD' }],
      ['iban', { iban: 'LY60002001048000000000001' }],
    ])('treats a 2xx echoing another %s as an unknown outcome (bad_answer), never booked', async (_field, echo) => {
      const acc = open(1_000);
      const reference = `ops_echo${seq}`;
      core.fail({
        path: '/accounts/debit',
        kind: 'status',
        status: 200,
        body: JSON.stringify({ reference, amount: 10, currency: 'LYD', iban: acc.iban, ...echo }),
      });
      const error = await failure(debit(acc.iban, 10, reference));
      expect(error).toBeInstanceOf(BankCoreError);
      expect(error).toMatchObject({ code: 'CBS_ERROR', reason: 'bad_answer', coreStatus: 200, attempts: 1 });
    });

    it('reads 409 DUPLICATE_REFERENCE as booked by an earlier call', async () => {
      const dedup = await startCore({ replay: 'duplicate' });
      const dedupClient = makeClient(dedup.url);
      const acc = open(1_000, dedup);
      await debit(acc.iban, 50, 'ops_dup1', dedupClient);
      await expect(debit(acc.iban, 50, 'ops_dup1', dedupClient)).resolves.toEqual({
        transactionId: null,
        bookedAt: null,
        duplicate: true,
      });
      expect(dedup.balance(acc.iban)).toBe(950);
    });

    it.each([['{"code": "DUPLICATE"}'], ['{"error": "ALREADY_PROCESSED"}']])(
      'reads the duplicate code in %s as booked',
      async (body) => {
        const acc = open(1_000);
        core.fail({ path: '/accounts/credit', kind: 'status', status: 409, body });
        await expect(credit(acc.iban, 1, `ops_dupcode${seq}`)).resolves.toMatchObject({ duplicate: true });
      },
    );

    it('books once when the core answers 500 twice then 200 (same reference replayed)', async () => {
      const acc = open(1_000);
      core.fail(
        { path: '/accounts/debit', kind: 'book-then-status', status: 500 },
        { path: '/accounts/debit', kind: 'status', status: 500 },
      );
      const before = core.calls.length;
      const booked = await debit(acc.iban, 200, 'ops_500twice');
      expect(core.calls.slice(before).map((c) => c.body?.reference)).toEqual([
        'ops_500twice',
        'ops_500twice',
        'ops_500twice',
      ]);
      expect(booked).toEqual({ transactionId: core.entries(acc.iban)[0]!.id, bookedAt: null, duplicate: false });
      expect(core.balance(acc.iban)).toBe(800);
      expect(core.entries(acc.iban)).toHaveLength(1);
    });
  });

  describe('debit and credit: refused', () => {
    it('maps 422 {"error": "INSUFFICIENT_FUNDS"} to INSUFFICIENT_FUNDS, without retrying', async () => {
      const acc = open(50);
      const before = core.calls.length;
      const error = await failure(debit(acc.iban, 51, 'ops_poor'));
      expect(error).toMatchObject({
        code: 'INSUFFICIENT_FUNDS',
        reason: 'rejected',
        coreStatus: 422,
        coreCode: 'INSUFFICIENT_FUNDS',
        attempts: 1,
      });
      expect(core.calls.length - before).toBe(1);
    });

    it('maps a 422 with no readable code on a debit to INSUFFICIENT_FUNDS, but not on a credit', async () => {
      const acc = open(1_000);
      core.fail({ path: '/accounts/debit', kind: 'status', status: 422, body: '' });
      await expect(failure(debit(acc.iban, 1, 'ops_422bare'))).resolves.toMatchObject({
        code: 'INSUFFICIENT_FUNDS',
        reason: 'rejected',
      });
      core.fail({ path: '/accounts/credit', kind: 'status', status: 422, body: '{"message": "cannot"}' });
      await expect(failure(credit(acc.iban, 1, 'ops_422credit'))).resolves.toMatchObject({
        code: 'CBS_ERROR',
        reason: 'client_error',
        coreStatus: 422,
      });
    });

    it('reads the code from error.code, code or error, and the message from message, error.message or error_description', async () => {
      const acc = open(1_000);
      core.fail(
        {
          path: '/accounts/debit',
          kind: 'status',
          status: 400,
          body: '{"code": "LIMIT_EXCEEDED", "message": "over the daily limit"}',
        },
        {
          path: '/accounts/debit',
          kind: 'status',
          status: 403,
          body: '{"error": {"code": "ACCOUNT_BLOCKED", "message": "blocked"}}',
        },
        {
          path: '/accounts/debit',
          kind: 'status',
          status: 400,
          body: '{"error": "invalid_request", "error_description": "bad iban"}',
        },
      );
      const limit = await failure(debit(acc.iban, 1, 'ops_code1'));
      const blocked = await failure(debit(acc.iban, 1, 'ops_code2'));
      const oauthStyle = await failure(debit(acc.iban, 1, 'ops_code3'));
      expect(limit).toMatchObject({
        code: 'CBS_ERROR',
        reason: 'client_error',
        coreCode: 'LIMIT_EXCEEDED',
        attempts: 1,
      });
      expect(limit!.detail).toContain('over the daily limit');
      expect(blocked).toMatchObject({ reason: 'client_error', coreCode: 'ACCOUNT_BLOCKED' });
      expect(blocked!.detail).toContain('blocked');
      expect(oauthStyle).toMatchObject({ reason: 'client_error', coreCode: 'invalid_request' });
      expect(oauthStyle!.detail).toContain('bad iban');
      expect(core.balance(acc.iban)).toBe(1_000);
    });

    it('maps an unknown account (404) to a final CBS_ERROR client_error', async () => {
      await expect(failure(debit('LY60002001048000000000001', 1, 'ops_noacc'))).resolves.toMatchObject({
        code: 'CBS_ERROR',
        reason: 'client_error',
        coreStatus: 404,
        coreCode: 'ACCOUNT_NOT_FOUND',
      });
    });
  });

  describe('debit and credit: unknown outcome', () => {
    it('reads a 4xx after a 5xx as replay_refused: the first attempt may have booked', async () => {
      const acc = open(1_000);
      core.fail(
        { path: '/accounts/debit', kind: 'book-then-status', status: 500 },
        { path: '/accounts/debit', kind: 'status', status: 422, body: '{"error": "INSUFFICIENT_FUNDS"}' },
      );
      const error = await failure(debit(acc.iban, 600, 'ops_500then422'));
      expect(error).toMatchObject({
        code: 'CBS_ERROR',
        reason: 'replay_refused',
        coreStatus: 422,
        coreCode: 'INSUFFICIENT_FUNDS',
        attempts: 2,
      });
      // it had booked: a refusal here must not be read as "not booked"
      expect(core.balance(acc.iban)).toBe(400);
    });

    it('reads a 4xx after a timeout as replay_refused, and a duplicate code after it as booked', async () => {
      const acc = open(1_000);
      core.fail(
        { path: '/accounts/credit', kind: 'hang' },
        { path: '/accounts/credit', kind: 'status', status: 404, body: '{"error": "ACCOUNT_NOT_FOUND"}' },
      );
      await expect(failure(credit(acc.iban, 5, 'ops_hang404'))).resolves.toMatchObject({
        reason: 'replay_refused',
        coreStatus: 404,
      });

      const dedup = await startCore({ replay: 'duplicate' });
      const other = open(1_000, dedup);
      dedup.fail({ path: '/accounts/credit', kind: 'book-then-status', status: 503 });
      await expect(credit(other.iban, 5, 'ops_503dup', makeClient(dedup.url))).resolves.toEqual({
        transactionId: null,
        bookedAt: null,
        duplicate: true,
      });
      expect(dedup.balance(other.iban)).toBe(1_005);
    });

    it.each([[301], [302], [307]])(
      'treats a %i as an unknown outcome (bad_answer), neither booked nor refused',
      async (status) => {
        const acc = open(1_000);
        core.fail({ path: '/accounts/debit', kind: 'status', status, body: '' });
        await expect(failure(debit(acc.iban, 1, `ops_3xx${status}`))).resolves.toMatchObject({
          code: 'CBS_ERROR',
          reason: 'bad_answer',
          coreStatus: status,
          attempts: 1,
        });
      },
    );

    it('gives CBS_TIMEOUT for a core that never answers, after retrying the same reference', async () => {
      const acc = open(1_000);
      core.fail(...Array.from({ length: 3 }, () => ({ path: '/accounts/debit', kind: 'hang' as const })));
      const before = core.calls.length;
      await expect(failure(debit(acc.iban, 1, 'ops_hung'))).resolves.toMatchObject({
        code: 'CBS_TIMEOUT',
        reason: 'timeout',
        attempts: 3,
      });
      expect(core.calls.slice(before).map((c) => c.body?.reference)).toEqual(['ops_hung', 'ops_hung', 'ops_hung']);
    });
  });

  describe('verifyCustomer', () => {
    it('verifies the right OTP and reads 401 {"error": "OTP_INVALID"} as OTP_INVALID', async () => {
      const acc = open(0);
      await expect(client.verifyCustomer({ customerRef: acc.customerRef, otp: acc.otp })).resolves.toEqual({
        verified: true,
      });
      await expect(
        failure(client.verifyCustomer({ customerRef: acc.customerRef, otp: 'nope' })),
      ).resolves.toMatchObject({
        code: 'OTP_INVALID',
        reason: 'rejected',
        coreStatus: 401,
      });
    });

    it('never reads a refused internal key as a wrong OTP', async () => {
      const acc = open(0);
      const wrongKey = makeClient(core.url, { internalKey: 'sik_some_other_key_entirely_000' });
      const error = await failure(wrongKey.verifyCustomer({ customerRef: acc.customerRef, otp: acc.otp }));
      expect(error).toMatchObject({
        code: 'CBS_ERROR',
        reason: 'client_error',
        coreStatus: 401,
        coreCode: 'UNAUTHORIZED',
      });
      core.fail({ path: '/customers/verify', kind: 'status', status: 403, body: '{"error": {"code": "FORBIDDEN"}}' });
      await expect(
        failure(client.verifyCustomer({ customerRef: acc.customerRef, otp: acc.otp })),
      ).resolves.toMatchObject({ code: 'CBS_ERROR', coreStatus: 403 });
      // and on a debit, a refused key is a refusal of the call, not of the customer's funds
      await expect(failure(debit(acc.iban, 1, 'ops_wrongkey', wrongKey))).resolves.toMatchObject({
        code: 'CBS_ERROR',
        reason: 'client_error',
        coreCode: 'UNAUTHORIZED',
      });
    });

    it('reads a 2xx without verified: true as OTP_INVALID', async () => {
      const acc = open(0);
      core.fail(
        { path: '/customers/verify', kind: 'status', status: 200, body: '{"verified": "yes"}' },
        { path: '/customers/verify', kind: 'status', status: 200, body: '' },
      );
      await expect(
        failure(client.verifyCustomer({ customerRef: acc.customerRef, otp: acc.otp })),
      ).resolves.toMatchObject({ code: 'OTP_INVALID', coreStatus: 200 });
      await expect(
        failure(client.verifyCustomer({ customerRef: acc.customerRef, otp: acc.otp })),
      ).resolves.toMatchObject({ code: 'OTP_INVALID' });
    });
  });

  describe('getAccount', () => {
    it('reads the spec-only {iban, name, balance, currency}', async () => {
      const acc = open(4_321);
      await expect(client.getAccount(acc.iban)).resolves.toEqual({
        iban: acc.iban,
        holderName: `Holder ${seq}`,
        customerRef: null,
        balance: 4_321,
        currency: 'LYD',
      });
    });

    it('takes holder_name, account_holder or name, an integer-string balance, and the requested IBAN when the body has none', async () => {
      const acc = open(0);
      core.fail(
        {
          path: `/accounts/${acc.iban}`,
          kind: 'status',
          status: 200,
          body: '{"account_holder": "A. Holder", "balance": "1200", "currency": "LYD", "customer_ref": "c-9"}',
        },
        {
          path: `/accounts/${acc.iban}`,
          kind: 'status',
          status: 200,
          body: '{"holder_name": "H", "name": "N", "balance": 5, "currency": "LYD"}',
        },
        { path: `/accounts/${acc.iban}`, kind: 'status', status: 200, body: '{"balance": 5, "currency": "LYD"}' },
      );
      await expect(client.getAccount(acc.iban)).resolves.toEqual({
        iban: acc.iban,
        holderName: 'A. Holder',
        customerRef: 'c-9',
        balance: 1_200,
        currency: 'LYD',
      });
      await expect(client.getAccount(acc.iban)).resolves.toMatchObject({ holderName: 'H' });
      await expect(client.getAccount(acc.iban)).resolves.toMatchObject({ holderName: '', balance: 5 });
    });

    it.each([
      ['no balance', '{"currency": "LYD", "name": "x"}'],
      ['a fractional balance', '{"balance": 10.5, "currency": "LYD"}'],
      ['no currency', '{"balance": 10}'],
    ])('refuses an answer with %s as bad_answer', async (_label, body) => {
      const acc = open(0);
      core.fail({ path: `/accounts/${acc.iban}`, kind: 'status', status: 200, body });
      await expect(failure(client.getAccount(acc.iban))).resolves.toMatchObject({
        code: 'CBS_ERROR',
        reason: 'bad_answer',
      });
    });
  });

  describe('listTransactions', () => {
    const today = () => new Date().toISOString().slice(0, 10);

    it('reads the spec-only bare array with signed amounts, id and date', async () => {
      const acc = open(1_000);
      await debit(acc.iban, 70, 'ops_stmt1');
      await credit(acc.iban, 30, 'ops_stmt2');
      const [debitEntry, creditEntry] = core.entries(acc.iban);
      const statement = await client.listTransactions(acc.iban, today(), today());
      expect(statement).toEqual({
        iban: acc.iban,
        transactions: [
          {
            transactionId: debitEntry!.id,
            bookingDate: today(),
            amount: 70,
            currency: 'LYD',
            creditDebitIndicator: 'DEBIT',
            description: 'checkout',
            reference: 'ops_stmt1',
          },
          {
            transactionId: creditEntry!.id,
            bookingDate: today(),
            amount: 30,
            currency: 'LYD',
            creditDebitIndicator: 'CREDIT',
            description: 'payout',
            reference: 'ops_stmt2',
          },
        ],
      });
      expect(findBooking(statement, { reference: 'ops_stmt1', amount: 70, currency: 'LYD', direction: 'DEBIT' })).toBe(
        'booked',
      );
      expect(findBooking(statement, { reference: 'ops_stmt1', amount: 70, currency: 'LYD', direction: 'CREDIT' })).toBe(
        'absent',
      );
    });

    it('reads {transactions: […]} with booked_at, a lower-case indicator, ref or end_to_end_id', async () => {
      const acc = open(0);
      const body = {
        transactions: [
          {
            transaction_id: 'T1',
            booked_at: '2025-03-10T23:59:00Z',
            amount: 50,
            currency: 'LYD',
            credit_debit_indicator: 'debit',
            ref: 'ops_a',
          },
          { booking_date: '2025-03-11', amount: -20, currency: 'LYD', end_to_end_id: 'ops_b', description: null },
          { id: 7, date: '2025-03-12', amount: 20, currency: 'LYD', credit_debit_indicator: 'Credit' },
        ],
      };
      core.fail({
        path: `/accounts/${acc.iban}/transactions`,
        kind: 'status',
        status: 200,
        body: JSON.stringify(body),
      });
      await expect(client.listTransactions(acc.iban, '2025-03-01', '2025-03-31')).resolves.toEqual({
        iban: acc.iban,
        transactions: [
          {
            transactionId: 'T1',
            bookingDate: '2025-03-10',
            amount: 50,
            currency: 'LYD',
            creditDebitIndicator: 'DEBIT',
            description: '',
            reference: 'ops_a',
          },
          {
            transactionId: null,
            bookingDate: '2025-03-11',
            amount: 20,
            currency: 'LYD',
            creditDebitIndicator: 'DEBIT',
            description: '',
            reference: 'ops_b',
          },
          {
            transactionId: '7',
            bookingDate: '2025-03-12',
            amount: 20,
            currency: 'LYD',
            creditDebitIndicator: 'CREDIT',
            description: '',
            reference: null,
          },
        ],
      });
    });

    it.each([
      ['an item without a date', [{ amount: 5, currency: 'LYD', credit_debit_indicator: 'CREDIT' }]],
      ['an item without an amount', [{ date: '2025-03-01', currency: 'LYD', credit_debit_indicator: 'CREDIT' }]],
      ['an object without transactions', { items: [] }],
    ])('refuses a statement with %s as bad_answer (a dropped line could hide a booking)', async (_label, body) => {
      const acc = open(0);
      core.fail({
        path: `/accounts/${acc.iban}/transactions`,
        kind: 'status',
        status: 200,
        body: JSON.stringify(body),
      });
      await expect(failure(client.listTransactions(acc.iban, '2025-03-01', '2025-03-31'))).resolves.toMatchObject({
        code: 'CBS_ERROR',
        reason: 'bad_answer',
      });
    });
  });
});
