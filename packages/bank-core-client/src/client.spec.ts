import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { Logger } from '@gateway/kernel';
import type { SandboxBank } from '@gateway/bank-sandbox';
import { startReceiver, startTestBank, TEST_INTERNAL_KEY, type Receiver } from '@gateway/bank-sandbox/testing';
import { BankCoreError, createBankCoreClient, type BankCoreClient, type BankCoreClientOptions } from './index';

/** Every test talks to a real sandbox bank over HTTP; faults are injected in the sandbox. */
describe('bank-core client against a sandbox bank', () => {
  let db: Database;
  let bank: SandboxBank;
  let gateway: Receiver;
  let registry: Registry;
  let logs: Array<Record<string, unknown>>;
  let client: BankCoreClient;

  const makeClient = (overrides: Partial<BankCoreClientOptions> = {}): BankCoreClient =>
    createBankCoreClient({
      bankHandle: 'bank1',
      baseUrl: bank.url,
      internalKey: TEST_INTERNAL_KEY,
      timeoutMs: 300,
      retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
      totalBudgetMs: 2_000,
      metrics: registry,
      logger: recordingLogger(logs),
      ...overrides,
    });

  beforeAll(async () => {
    db = await openTestDatabase();
    gateway = await startReceiver((received) =>
      received.path === '/v1/identity/claim'
        ? received.body.npt_handle === 'taken'
          ? { status: 409, body: { error: { code: 'HANDLE_TAKEN', message: 'Handle already claimed' } } }
          : received.body.npt_handle === 'flaky'
            ? { status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } } }
            : { status: 201, body: { alias: received.body.npt_handle, iban: received.body.iban } }
        : { status: 200, body: {} },
    );
    bank = await startTestBank(db, {
      handle: 'bank1',
      institutionCode: '001',
      gatewayUrl: gateway.url,
      bankKey: 'sbk_bank1_k',
    });
  });
  afterAll(async () => {
    await bank.stop();
    await gateway.stop();
    await db.close();
  });
  beforeEach(() => {
    registry = new Registry();
    logs = [];
    client = makeClient();
    bank.clearFaults();
    bank.resetRequestCounts();
  });

  let seq = 0;
  const account = (balance: number) =>
    bank.openAccount({ customerRef: `cust-${(seq += 1)}`, holderName: `Holder ${seq}`, currency: 'LYD', balance });
  const debitOf = (iban: string, amount: number, reference: string) =>
    client.debit({ iban, amount, currency: 'LYD', reference, description: 'checkout' });

  describe('verifyCustomer', () => {
    it('answers {verified: true} for the right OTP', async () => {
      await bank.setOtp('otp-cust', '987654');
      await expect(client.verifyCustomer({ customerRef: 'otp-cust', otp: '987654' })).resolves.toEqual({
        verified: true,
      });
    });

    it('turns a 401 into OTP_INVALID without retrying', async () => {
      await bank.setOtp('otp-cust-2', '987654');
      const error = await client.verifyCustomer({ customerRef: 'otp-cust-2', otp: '000000' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BankCoreError);
      expect(error).toMatchObject({ code: 'OTP_INVALID', extensions: { code: 'OTP_INVALID', status: 401 } });
      expect(bank.requestCounts().byOperation.verify).toBe(1);
    });

    it("reports a refused internal key as CBS_ERROR, not as the customer's wrong OTP", async () => {
      await bank.setOtp('otp-cust-3', '987654');
      const wrongKey = makeClient({ internalKey: 'sik_not_the_right_key_at_all' });
      const error = await wrongKey
        .verifyCustomer({ customerRef: 'otp-cust-3', otp: '987654' })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'CBS_ERROR', coreStatus: 401, coreCode: 'INVALID_INTERNAL_KEY' });
    });
  });

  describe('debit and credit', () => {
    it('debits and answers the booked movement', async () => {
      const acc = await account(10_000);
      const booked = await debitOf(acc.iban, 2_500, 'ops_client_debit');
      // the sandbox echoes reference, iban, amount and currency: they match, so the answer is read as booked
      expect(booked).toEqual({
        transactionId: expect.stringMatching(/^txn_/),
        bookedAt: expect.any(String),
        duplicate: false,
      });
      expect((await bank.getAccount(acc.iban))?.balance).toBe(7_500);
    });

    it('moves the money once when the same debit is sent twice', async () => {
      const acc = await account(1_000);
      const first = await debitOf(acc.iban, 100, 'ops_twice');
      const second = await debitOf(acc.iban, 100, 'ops_twice');
      expect(second.transactionId).toBe(first.transactionId);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(900);
    });

    it('retries a debit whose answer timed out after the core booked it, and the money moves once', async () => {
      const acc = await account(1_000);
      // the first answer comes after the client's attempt deadline; the retry meets the booking
      bank.injectFaults({ latencyMs: 3_000, afterBooking: true, times: 1 });
      client = makeClient({ timeoutMs: 1_000, totalBudgetMs: 10_000 });
      const booked = await debitOf(acc.iban, 400, 'ops_lost_answer');
      const ledger = await bank.transactions(acc.iban);
      expect(ledger).toHaveLength(1);
      expect(booked.transactionId).toBe(ledger[0]!.transactionId);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(600);
      expect(bank.requestCounts().byOperation.debit).toBe(2);
      expect(
        await metricValue(registry, 'bank_core_call_retries_total', {
          bank: 'bank1',
          operation: 'debit',
          reason: 'timeout',
        }),
      ).toBe(1);
    });

    it('retries a debit answered 500 after booking, and the money moves once', async () => {
      const acc = await account(1_000);
      bank.injectFaults({ errorStatus: 500, afterBooking: true, times: 1 });
      const booked = await debitOf(acc.iban, 250, 'ops_500_after');
      expect(booked).toMatchObject({ transactionId: expect.stringMatching(/^txn_/), duplicate: false });
      expect((await bank.getAccount(acc.iban))?.balance).toBe(750);
      expect(bank.requestCounts().byOperation.debit).toBe(2);
    });

    it('succeeds when a 503 is followed by a success', async () => {
      const acc = await account(1_000);
      bank.injectFaults({ errorStatus: 503, times: 1 });
      await expect(debitOf(acc.iban, 10, 'ops_503_then_ok')).resolves.toMatchObject({ duplicate: false });
      expect((await bank.getAccount(acc.iban))?.balance).toBe(990);
      expect(bank.requestCounts().byOperation.debit).toBe(2);
      expect(
        await metricValue(registry, 'bank_core_call_retries_total', {
          bank: 'bank1',
          operation: 'debit',
          reason: 'server_error',
        }),
      ).toBe(1);
    });

    it('gives CBS_ERROR (502) when the core keeps answering 5xx', async () => {
      const acc = await account(1_000);
      bank.injectFaults({ errorStatus: 503 });
      const error = await debitOf(acc.iban, 10, 'ops_always_503').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'CBS_ERROR',
        extensions: { status: 502 },
        reason: 'server_error',
        attempts: 3,
        coreStatus: 503,
      });
      expect(bank.requestCounts().byOperation.debit).toBe(3);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(1_000);
    });

    it('maps 422 INSUFFICIENT_FUNDS and does not retry it', async () => {
      const acc = await account(50);
      const error = await debitOf(acc.iban, 51, 'ops_too_much').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'INSUFFICIENT_FUNDS',
        extensions: { code: 'INSUFFICIENT_FUNDS', status: 422 },
      });
      expect(bank.requestCounts().byOperation.debit).toBe(1);
    });

    it('never retries a 4xx: CBS_ERROR carrying what the core said', async () => {
      const missing = await debitOf('LY60002001048000000000001', 10, 'ops_no_account').catch((e: unknown) => e);
      expect(missing).toMatchObject({
        code: 'CBS_ERROR',
        reason: 'client_error',
        coreStatus: 404,
        coreCode: 'ACCOUNT_NOT_FOUND',
        attempts: 1,
      });
      expect((missing as BankCoreError).detail).toContain('ACCOUNT_NOT_FOUND');
      expect(bank.requestCounts().byOperation.debit).toBe(1);
    });

    it("reads the sandbox's 409 DUPLICATE_REFERENCE as booked by an earlier call (contract), without retrying", async () => {
      const acc = await account(1_000);
      await debitOf(acc.iban, 10, 'ops_conflict');
      // The sandbox answers 409 DUPLICATE_REFERENCE when a reference comes back with other content.
      await expect(debitOf(acc.iban, 11, 'ops_conflict')).resolves.toEqual({
        transactionId: null,
        bookedAt: null,
        duplicate: true,
      });
      expect(bank.requestCounts().byOperation.debit).toBe(2);
      expect((await bank.getAccount(acc.iban))?.balance).toBe(990);
    });

    it('credits with the spec fields only, and the sandbox tells the rail credit from the reference and confirms it', async () => {
      const acc = await account(0);
      const before = gateway.received.length;
      const booked = await client.credit({
        iban: acc.iban,
        amount: 900,
        currency: 'LYD',
        reference: 'ops_rail_client',
        description: 'from bank2',
      });
      expect(booked).toMatchObject({ transactionId: expect.stringMatching(/^txn_/), duplicate: false });
      expect((await bank.getAccount(acc.iban))?.balance).toBe(900);
      const calls = await gateway.waitFor(before + 1);
      expect(calls[before]!.body).toMatchObject({
        payment_reference: 'ops_rail_client',
        session_id: 'ops_rail_client',
        creditor_iban: acc.iban,
        amount: 900,
      });
    });

    it('checks its input before calling the core', async () => {
      const acc = await account(100);
      await expect(
        client.debit({ iban: 'LY00BAD', amount: 1, currency: 'LYD', reference: 'r', description: '' }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
      await expect(
        client.debit({ iban: acc.iban, amount: 1.5, currency: 'LYD', reference: 'r', description: '' }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
      expect(bank.requestCounts().total).toBe(0);
    });
  });

  describe('timeouts and unreachable cores', () => {
    it('gives CBS_TIMEOUT (503) for a hung core once the attempts are spent', async () => {
      const acc = await account(100);
      bank.injectFaults({ hang: true });
      const error = await client.getAccount(acc.iban).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'CBS_TIMEOUT', extensions: { status: 503 }, reason: 'timeout', attempts: 3 });
      expect(bank.requestCounts().byOperation.getAccount).toBe(3);
    });

    it('stops at the total budget even with attempts left', async () => {
      const acc = await account(100);
      bank.injectFaults({ hang: true });
      const budgeted = makeClient({
        timeoutMs: 300,
        totalBudgetMs: 700,
        retry: { attempts: 10, baseDelayMs: 1, maxDelayMs: 1 },
      });
      const error = (await budgeted.getAccount(acc.iban).catch((e: unknown) => e)) as BankCoreError;
      expect(error).toMatchObject({ code: 'CBS_TIMEOUT', reason: 'timeout' });
      expect(error.attempts).toBeLessThan(10);
      expect(bank.requestCounts().byOperation.getAccount).toBe(error.attempts);
    });

    it('gives CBS_TIMEOUT for a core nobody listens on, after retrying', async () => {
      const closedPort = await freePort();
      const nowhere = makeClient({ baseUrl: `http://127.0.0.1:${closedPort}` });
      const error = await nowhere.getAccount('LY60002001048000000000001').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'CBS_TIMEOUT', reason: 'unreachable', attempts: 3 });
    });
  });

  describe('reads', () => {
    it('getAccount maps the core account', async () => {
      const acc = await account(4_321);
      await expect(client.getAccount(acc.iban)).resolves.toEqual({
        iban: acc.iban,
        holderName: acc.holderName,
        customerRef: acc.customerRef,
        balance: 4_321,
        currency: 'LYD',
      });
    });

    it('listTransactions maps the statement between two dates', async () => {
      const acc = await account(1_000);
      await debitOf(acc.iban, 10, 'ops_statement_1');
      const today = new Date().toISOString().slice(0, 10);
      const statement = await client.listTransactions(acc.iban, today, today);
      expect(statement).toEqual({
        iban: acc.iban,
        transactions: [
          {
            transactionId: expect.stringMatching(/^txn_/),
            bookingDate: today,
            amount: 10,
            currency: 'LYD',
            creditDebitIndicator: 'DEBIT',
            description: 'checkout',
            reference: 'ops_statement_1',
          },
        ],
      });
      expect((await client.listTransactions(acc.iban, '2000-01-01', '2000-01-31')).transactions).toEqual([]);
      await expect(client.listTransactions(acc.iban, '2000-02-30', '2000-03-01')).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
    });
  });

  describe('enrollAlias', () => {
    it("has the bank claim the alias and returns the gateway's record, propagating the request id", async () => {
      const acc = await account(0);
      const result = await client.enrollAlias({
        alias: 'amira',
        accountIban: acc.iban,
        customerRef: acc.customerRef,
        requestId: 'req_enroll_trace',
      });
      expect(result).toEqual({ status: 201, alias: { alias: 'amira', iban: acc.iban } });
      const claim = gateway.received.at(-1)!;
      expect(claim.headers['x-request-id']).toBe('req_enroll_trace');
      expect(claim.body).toMatchObject({ npt_handle: 'amira', bank_customer_ref: acc.customerRef });
    });

    it('passes HANDLE_TAKEN through and does not retry a 5xx (no reference to deduplicate on)', async () => {
      const acc = await account(0);
      await expect(
        client.enrollAlias({ alias: 'taken', accountIban: acc.iban, customerRef: acc.customerRef }),
      ).rejects.toMatchObject({
        code: 'HANDLE_TAKEN',
        extensions: { status: 409 },
      });
      const before = gateway.received.length;
      const error = await client
        .enrollAlias({ alias: 'flaky', accountIban: acc.iban, customerRef: acc.customerRef })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'CBS_ERROR', attempts: 1, coreStatus: 503 });
      expect(gateway.received.length).toBe(before + 1);
    });
  });

  describe('observability', () => {
    it('records call duration per bank, operation and outcome', async () => {
      const acc = await account(10);
      await client.getAccount(acc.iban);
      await debitOf(acc.iban, 11, 'ops_metrics').catch(() => undefined);
      expect(
        await metricValue(
          registry,
          'bank_core_call_duration_seconds',
          { bank: 'bank1', operation: 'getAccount', outcome: 'ok' },
          '_count',
        ),
      ).toBe(1);
      expect(
        await metricValue(
          registry,
          'bank_core_call_duration_seconds',
          { bank: 'bank1', operation: 'debit', outcome: 'insufficient_funds' },
          '_count',
        ),
      ).toBe(1);
    });

    it('logs every call with bank, operation, request id, attempts and outcome, never the key or the OTP', async () => {
      await bank.setOtp('log-cust', '55667788');
      await client.verifyCustomer({ customerRef: 'log-cust', otp: '55667788', requestId: 'req_logged' });
      bank.injectFaults({ errorStatus: 503, times: 1 });
      await client.verifyCustomer({ customerRef: 'log-cust', otp: '55667788', requestId: 'req_retried' });
      expect(logs).toContainEqual(
        expect.objectContaining({
          bank: 'bank1',
          operation: 'verifyCustomer',
          request_id: 'req_logged',
          attempts: 1,
          outcome: 'ok',
        }),
      );
      expect(logs).toContainEqual(
        expect.objectContaining({ request_id: 'req_retried', attempt: 1, outcome: 'server_error' }),
      );
      expect(logs).toContainEqual(expect.objectContaining({ request_id: 'req_retried', attempts: 2, outcome: 'ok' }));
      const written = JSON.stringify(logs);
      expect(written).not.toContain(TEST_INTERNAL_KEY);
      expect(written).not.toContain('55667788');
    });
  });
});

/** A logger that keeps what it is given (the client's pino calls are (object, message)). */
function recordingLogger(into: Array<Record<string, unknown>>): Logger {
  const record = (level: string) => (fields: Record<string, unknown>, msg?: string) =>
    void into.push({ level, msg, ...fields });
  const logger = {
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    debug: record('debug'),
    trace: record('trace'),
    fatal: record('fatal'),
  };
  return logger as unknown as Logger;
}

async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
  suffix = '',
): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return undefined;
  const { values } = await metric.get();
  const match = values.find(
    (v) =>
      (v as { metricName?: string }).metricName ===
        (suffix ? `${name}${suffix}` : (v as { metricName?: string }).metricName) &&
      Object.entries(labels).every(([k, value]) => v.labels[k] === value),
  );
  return match?.value;
}

/** A port that was free a moment ago and has nobody listening now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
