import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import { composeLyIban, type SandboxBank } from '@gateway/bank-sandbox';
import { startTestBank, TEST_INTERNAL_KEY } from '@gateway/bank-sandbox/testing';
import { startMinimalCore, type MinimalCore } from '@gateway/bank-core-client/testing';
import { runBankCheck, type BankCheckResult, type StepStatus } from './index';

const ALL_PASS: Array<[number, StepStatus]> = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, 'PASS']);
const statuses = (result: BankCheckResult) => result.steps.map((step) => [step.number, step.status]);
const step = (result: BankCheckResult, number: number) => result.steps.find((s) => s.number === number)!;

describe('bank check against the sandbox bank', () => {
  let db: Database;
  let bank: SandboxBank;
  let seq = 0;

  beforeAll(async () => {
    db = await openTestDatabase();
    bank = await startTestBank(db, { handle: 'bank1', institutionCode: '001' });
  });
  afterAll(async () => {
    await bank.stop();
    await db.close();
  });
  beforeEach(() => bank.clearFaults());

  const customer = async (balance: number) => {
    const customerRef = `chk-cust-${(seq += 1)}`;
    const account = await bank.openAccount({
      customerRef,
      holderName: `Check Customer ${seq}`,
      currency: 'LYD',
      balance,
    });
    await bank.setOtp(customerRef, '482916');
    return { customerRef, otp: '482916', iban: account.iban };
  };

  it('passes every step, books each movement once and leaves the balance as it was', async () => {
    const c = await customer(10_000);
    const result = await runBankCheck({ url: bank.url, internalKey: TEST_INTERNAL_KEY, ...c, amount: 250 });

    expect(statuses(result)).toEqual(ALL_PASS);
    expect(result.ok).toBe(true);
    expect(step(result, 3).detail).toContain('wrong key: HTTP 401 INVALID_INTERNAL_KEY');
    expect(step(result, 7).detail).toContain('INSUFFICIENT_FUNDS');
    expect((await bank.getAccount(c.iban))?.balance).toBe(10_000);
    // the core's own books: one debit and one credit of 250 under the check's references, nothing else
    const ledger = await bank.transactions(c.iban);
    expect(ledger.map((t) => [t.reference, t.operation, t.amount]).sort()).toEqual(
      [
        [result.target.references.debit, 'DEBIT', 250],
        [result.target.references.credit, 'CREDIT', 250],
      ].sort(),
    );
    expect(result.target.currency).toBe('LYD');
    expect(result.calls.every((call) => call.answered && call.ms < 10_000 && !call.timedOut)).toBe(true);
    expect(step(result, 9).detail).toMatch(new RegExp(`^${result.calls.length} answers, slowest `));
    const printed = JSON.stringify(result);
    expect(printed).not.toContain(TEST_INTERNAL_KEY);
    expect(printed).not.toContain('482916');
  });

  it('fails step 1 on an OTP the core does not accept, and the rest still runs', async () => {
    const c = await customer(1_000);
    const result = await runBankCheck({ url: bank.url, internalKey: TEST_INTERNAL_KEY, ...c, otp: '000111' });
    expect(step(result, 1)).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('OTP_INVALID') });
    expect(step(result, 5).status).toBe('PASS');
    expect(result.ok).toBe(false);
  });

  it('fails step 5 when the account holds less than the amount, and moves nothing', async () => {
    const c = await customer(50);
    const result = await runBankCheck({ url: bank.url, internalKey: TEST_INTERNAL_KEY, ...c, amount: 100 });
    expect(step(result, 5)).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('fund the test account') });
    expect(step(result, 6).status).toBe('SKIP');
    expect(step(result, 10).status).toBe('PASS');
    expect(await bank.transactions(c.iban)).toEqual([]);
  });

  it('fails step 6 when the credit is booked but answered 500, and step 10 still finds the balance restored', async () => {
    const c = await customer(5_000);
    bank.injectFaults({ errorStatus: 500, afterBooking: true, times: 1, operations: ['credit'] });
    const result = await runBankCheck({ url: bank.url, internalKey: TEST_INTERNAL_KEY, ...c });
    expect(step(result, 5).status).toBe('PASS');
    expect(step(result, 6)).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('HTTP 500') });
    expect(step(result, 10).status).toBe('PASS');
    expect(result.ok).toBe(false);
    expect((await bank.getAccount(c.iban))?.balance).toBe(5_000);
  });

  it('fails naming step 5 against a core that books a same-reference retry again, and restores the balance', async () => {
    const c = await customer(10_000);
    const proxy = await startFaultyProxy(bank.url, 'double-book');
    try {
      const result = await runBankCheck({ url: proxy.url, internalKey: TEST_INTERNAL_KEY, ...c, amount: 100 });
      expect(result.ok).toBe(false);
      expect(step(result, 5)).toMatchObject({
        status: 'FAIL',
        detail: expect.stringMatching(/^double-booked: .*10000 → 9800/),
      });
      expect(step(result, 4).status).toBe('PASS');
      expect(['PASS', 'WARN']).toContain(step(result, 10).status);
      expect((await bank.getAccount(c.iban))?.balance).toBe(10_000);
    } finally {
      await proxy.stop();
    }
  });

  it("fails step 3 when a wrong key is refused with a bare 401, which the gateway reads as the customer's wrong OTP", async () => {
    const c = await customer(1_000);
    const proxy = await startFaultyProxy(bank.url, 'bare-401');
    try {
      const result = await runBankCheck({ url: proxy.url, internalKey: TEST_INTERNAL_KEY, ...c });
      expect(step(result, 3)).toMatchObject({
        status: 'FAIL',
        detail: expect.stringContaining("reads this refusal as the customer's wrong OTP"),
      });
      expect(statuses(result).filter(([, status]) => status !== 'PASS')).toEqual([[3, 'FAIL']]);
    } finally {
      await proxy.stop();
    }
  });

  it('fails step 9 naming the calls answered over the limit', async () => {
    const c = await customer(1_000);
    bank.injectFaults({ latencyMs: 300, operations: ['listTransactions'] });
    const result = await runBankCheck({ url: bank.url, internalKey: TEST_INTERNAL_KEY, ...c, answerLimitMs: 250 });
    expect(step(result, 9)).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(/^over 250 ms: listTransactions \(step 8\) \d+ ms$/),
    });
    expect(step(result, 8).status).toBe('PASS');
  });
});

describe('bank check against a minimal core written from the spec alone', () => {
  const KEY = 'sik_minimal_core_key_0123456789';
  const IBAN = composeLyIban('002', '000000000000042');
  let core: MinimalCore;

  const start = async (replay?: 'same' | 'duplicate' | 'double-book') => {
    core = await startMinimalCore({ internalKey: KEY, ...(replay ? { replay } : {}) });
    core.openAccount(IBAN, { customerRef: 'min-cust', otp: '271828', balance: 20_000, currency: 'LYD' });
  };
  afterEach(async () => core?.stop());
  const check = () =>
    runBankCheck({ url: core.url, internalKey: KEY, customerRef: 'min-cust', otp: '271828', iban: IBAN });

  it('passes against a core that answers a replay with its first answer', async () => {
    await start('same');
    const result = await check();
    expect(statuses(result)).toEqual(ALL_PASS);
    expect(core.balance(IBAN)).toBe(20_000);
    expect(core.entries(IBAN).map((e) => e.amount)).toEqual([-100, 100]);
  });

  it('passes against a core that answers a replay with 409 DUPLICATE_REFERENCE', async () => {
    await start('duplicate');
    const result = await check();
    expect(statuses(result)).toEqual(ALL_PASS);
    expect(step(result, 5).detail).toMatch(/booked once: balance 20000 → 19900/);
    expect(core.balance(IBAN)).toBe(20_000);
  });

  it('fails naming step 5 against a core that double-books a replay', async () => {
    await start('double-book');
    const result = await check();
    expect(result.ok).toBe(false);
    expect(step(result, 5)).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(/^double-booked: .*20000 → 19800/),
    });
    expect(core.balance(IBAN)).toBe(20_000);
  });
});

/**
 * A defective core made from the sandbox. 'double-book': every debit or credit reaches it under a
 * reference of its own, so a same-reference retry is booked again (answers carry the caller's
 * reference back). 'bare-401': a refused key is answered 401 with an empty body.
 */
async function startFaultyProxy(
  target: string,
  fault: 'double-book' | 'bare-401',
): Promise<{ url: string; stop(): Promise<void> }> {
  let n = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      let body = chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined;
      let reference: string | undefined;
      if (fault === 'double-book' && body && req.method === 'POST' && req.url?.startsWith('/accounts/')) {
        const parsed = JSON.parse(body) as { reference: string };
        reference = parsed.reference;
        body = JSON.stringify({ ...parsed, reference: `${reference}~${(n += 1)}` });
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>;
      const answer = await request(`${target}${req.url}`, {
        method: req.method as 'GET' | 'POST',
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      let text = await answer.body.text();
      if (reference && answer.statusCode < 300) text = JSON.stringify({ ...JSON.parse(text), reference });
      if (
        fault === 'bare-401' &&
        answer.statusCode === 401 &&
        req.headers['x-service-internal-key'] !== TEST_INTERNAL_KEY
      )
        text = '';
      res.writeHead(answer.statusCode, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
