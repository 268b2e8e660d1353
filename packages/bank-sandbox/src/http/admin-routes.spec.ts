import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { SandboxBank } from '../sandbox-bank';
import { call, startTestBank } from '../testing/support';

describe('sandbox admin API and fault injection', () => {
  let db: Database;
  let bank: SandboxBank;

  beforeAll(async () => {
    db = await openTestDatabase();
    bank = await startTestBank(db, { handle: 'adminbank', institutionCode: '005' });
  });
  afterAll(async () => {
    await bank.stop();
    await db.close();
  });
  afterEach(() => bank.clearFaults());

  it('adds accounts and customers, sets OTPs and shows the ledger', async () => {
    const created = await call(bank, 'POST', '/sandbox/accounts', {
      customer_ref: 'adm-1',
      holder_name: 'Admin Made',
      currency: 'EUR',
      balance: 900,
      otp: '111111',
    });
    expect(created).toMatchObject({
      status: 201,
      body: { customer_ref: 'adm-1', holder_name: 'Admin Made', currency: 'EUR', balance: 900 },
    });
    expect((await call(bank, 'POST', '/customers/verify', { customer_ref: 'adm-1', otp: '111111' })).status).toBe(200);
    expect((await call(bank, 'PUT', '/sandbox/customers/adm-1/otp', { otp: '222222' })).status).toBe(204);
    expect((await call(bank, 'POST', '/customers/verify', { customer_ref: 'adm-1', otp: '111111' })).status).toBe(401);
    expect((await call(bank, 'POST', '/customers/verify', { customer_ref: 'adm-1', otp: '222222' })).status).toBe(200);

    await call(bank, 'POST', '/accounts/debit', {
      iban: created.body.iban,
      amount: 100,
      currency: 'EUR',
      reference: 'ops_adm',
      description: 'd',
    });
    const ledger = await call(bank, 'GET', '/sandbox/ledger');
    expect(ledger.body.bank_handle).toBe('adminbank');
    expect(ledger.body.accounts).toContainEqual(expect.objectContaining({ iban: created.body.iban, balance: 800 }));
    expect(ledger.body.transactions).toContainEqual(
      expect.objectContaining({
        iban: created.body.iban,
        reference: 'ops_adm',
        credit_debit_indicator: 'DEBIT',
        amount: 100,
        balance_after: 800,
      }),
    );
  });

  it('refuses an account whose IBAN is not at this bank', async () => {
    const answer = await call(bank, 'POST', '/sandbox/accounts', {
      customer_ref: 'x',
      holder_name: 'X',
      currency: 'LYD',
      iban: 'LY60002001048000000000001',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('institution code');
  });

  it('injects an error status for the next N core requests, then recovers by itself', async () => {
    const acc = await bank.openAccount({ customerRef: 'adm-fault', holderName: 'F', currency: 'LYD', balance: 10 });
    const plan = await call(bank, 'POST', '/sandbox/faults', { error_status: 503, times: 2 });
    expect(plan.body.faults).toMatchObject({ errorRate: 1, errorStatus: 503, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await call(bank, 'GET', `/accounts/${acc.iban}`)).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect((await call(bank, 'GET', '/sandbox/faults')).body.faults).toBeNull();
  });

  it('limits a fault plan to some operations, counting only those', async () => {
    const acc = await bank.openAccount({ customerRef: 'adm-ops', holderName: 'O', currency: 'LYD', balance: 1_000 });
    await call(bank, 'POST', '/sandbox/faults', { error_status: 503, operations: ['credit'], times: 1 });
    expect((await call(bank, 'GET', `/accounts/${acc.iban}`)).status).toBe(200);
    expect(
      (
        await call(bank, 'POST', '/accounts/debit', {
          iban: acc.iban,
          amount: 1,
          currency: 'LYD',
          reference: 'ops_only_debit',
          description: 'd',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(bank, 'POST', '/accounts/credit', {
          iban: acc.iban,
          amount: 1,
          currency: 'LYD',
          reference: 'ops_only_credit',
          description: 'c',
        })
      ).status,
    ).toBe(503);
    expect(
      (
        await call(bank, 'POST', '/accounts/credit', {
          iban: acc.iban,
          amount: 1,
          currency: 'LYD',
          reference: 'ops_only_credit',
          description: 'c',
        })
      ).status,
    ).toBe(200);
    expect((await call(bank, 'POST', '/sandbox/faults', { operations: ['transfer'] })).status).toBe(400);
  });

  it('afterBooking errors book the movement and still answer the error', async () => {
    const acc = await bank.openAccount({ customerRef: 'adm-after', holderName: 'A', currency: 'LYD', balance: 1_000 });
    bank.injectFaults({ errorStatus: 500, afterBooking: true, times: 1 });
    const lost = await call(bank, 'POST', '/accounts/debit', {
      iban: acc.iban,
      amount: 10,
      currency: 'LYD',
      reference: 'ops_after',
      description: 'd',
    });
    expect(lost.status).toBe(500);
    expect((await bank.getAccount(acc.iban))?.balance).toBe(990);
    const retry = await call(bank, 'POST', '/accounts/debit', {
      iban: acc.iban,
      amount: 10,
      currency: 'LYD',
      reference: 'ops_after',
      description: 'd',
    });
    expect(retry).toMatchObject({ status: 200, body: { balance_after: 990 } });
    expect((await bank.getAccount(acc.iban))?.balance).toBe(990);
  });

  it('counts core requests per operation and resets the counts', async () => {
    await call(bank, 'DELETE', '/sandbox/requests');
    await call(bank, 'POST', '/customers/verify', { customer_ref: 'nobody', otp: '0000' });
    await call(bank, 'GET', '/accounts/LY60002001048000000000001');
    const counts = await call(bank, 'GET', '/sandbox/requests');
    expect(counts.body).toMatchObject({ total: 2, by_operation: { verify: 1, getAccount: 1, debit: 0 } });
    expect(bank.requestCounts().total).toBe(2);
  });

  it('leaves the admin API out of fault injection', async () => {
    bank.injectFaults({ errorStatus: 503 });
    expect((await call(bank, 'GET', '/sandbox/ledger')).status).toBe(200);
    expect((await call(bank, 'DELETE', '/sandbox/faults')).status).toBe(204);
    expect(bank.injectFaults({ latencyMs: 1 })).toEqual({ latencyMs: 1 });
  });

  it('rejects a bad fault plan with 400', async () => {
    const answer = await call(bank, 'POST', '/sandbox/faults', { error_rate: 2 });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('error_rate');
  });
});
