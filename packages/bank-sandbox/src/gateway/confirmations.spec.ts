import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { SandboxBank, SandboxBankOptions } from '../sandbox-bank';
import { call, startReceiver, startTestBank, TEST_INTERNAL_KEY, type Receiver } from '../testing/support';

describe('rail credits and the credit-confirmed callback', () => {
  let db: Database;
  const started: Array<{ stop(): Promise<void> }> = [];

  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => {
    for (const thing of started.reverse()) await thing.stop();
    await db.close();
  });

  const startBank = async (
    handle: string,
    gateway?: Receiver,
    overrides: Partial<SandboxBankOptions> = {},
  ): Promise<SandboxBank> => {
    const bank = await startTestBank(db, {
      handle,
      institutionCode: '002',
      ...(gateway ? { gatewayUrl: gateway.url, bankKey: `sbk_${handle}_x` } : {}),
      ...overrides,
    });
    started.push(bank);
    return bank;
  };
  const receiver = async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
    const r = await startReceiver(...args);
    started.push(r);
    return r;
  };
  const credit = (bank: SandboxBank, body: Record<string, unknown>) =>
    call(bank, 'POST', '/accounts/credit', { currency: 'LYD', description: 'rail credit', ...body });
  const debit = (bank: SandboxBank, body: Record<string, unknown>) =>
    call(bank, 'POST', '/accounts/debit', { currency: 'LYD', description: 'payment', ...body });

  it('tells a rail credit from the spec fields alone and posts credit-confirmed with the internal key, rrn kept on the transaction', async () => {
    const gateway = await receiver();
    const bank = await startBank('railbank', gateway);
    const acc = await bank.openAccount({
      customerRef: 'creditor',
      holderName: 'Cred Itor',
      currency: 'LYD',
      balance: 0,
    });

    // exactly what the gateway sends: a session id as reference, no debit of it at this bank
    const answer = await credit(bank, { iban: acc.iban, amount: 4_200, reference: 'ops_rail1' });
    expect(answer.status).toBe(200);
    const [callback] = await gateway.waitFor(1);
    expect(callback!.method).toBe('POST');
    expect(callback!.path).toBe('/service/callbacks/v1/payment/credit-confirmed');
    expect(callback!.headers['x-service-internal-key']).toBe(TEST_INTERNAL_KEY);
    expect(callback!.body).toEqual({
      payment_reference: 'ops_rail1',
      session_id: 'ops_rail1',
      creditor_iban: acc.iban,
      amount: 4_200,
      currency: 'LYD',
      rrn: expect.stringMatching(/^\d{12}$/),
    });
    const [booked] = await bank.transactions(acc.iban);
    expect(booked!.rrn).toBe(callback!.body.rrn);
    await waitUntil(async () => (await bank.transactions(acc.iban))[0]?.confirmationStatus === 'CONFIRMED');
  });

  it('sends nothing for a payment within the bank (its debit is here), a reversal or a credit whose reference is no session id', async () => {
    const gateway = await receiver();
    const bank = await startBank('onusbank', gateway);
    const payer = await bank.openAccount({ customerRef: 'p', holderName: 'Payer', currency: 'LYD', balance: 100 });
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'On Us', currency: 'LYD', balance: 0 });
    expect((await debit(bank, { iban: payer.iban, amount: 5, reference: 'ops_onus1' })).status).toBe(200);
    expect((await credit(bank, { iban: acc.iban, amount: 5, reference: 'ops_onus1' })).status).toBe(200);
    expect((await credit(bank, { iban: payer.iban, amount: 1, reference: 'ops_elsewhere9:reversal' })).status).toBe(
      200,
    );
    expect((await credit(bank, { iban: acc.iban, amount: 1, reference: 'stl_cycle1:onusbank:LYD' })).status).toBe(200);
    expect((await credit(bank, { iban: acc.iban, amount: 1, reference: 'refund-42' })).status).toBe(200);
    // a rail credit after them is the first and only callback; extra fields a core does not know are ignored
    expect(
      (await credit(bank, { iban: acc.iban, amount: 1, reference: 'ops_onus3', debtor_bank: 'onusbank', note: 'x' }))
        .status,
    ).toBe(200);
    await gateway.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gateway.received.map((c) => c.body.payment_reference)).toEqual(['ops_onus3']);
    expect((await bank.transactions()).filter((t) => t.rrn !== null).map((t) => t.reference)).toEqual(['ops_onus3']);
  });

  it('does not confirm a retried (deduplicated) rail credit twice', async () => {
    const gateway = await receiver();
    const bank = await startBank('dupbank', gateway);
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Dup', currency: 'LYD', balance: 0 });
    const body = { iban: acc.iban, amount: 10, reference: 'ops_duprail' };
    const [a, b] = await Promise.all([credit(bank, body), credit(bank, body)]);
    expect(a.body.transaction_id).toBe(b.body.transaction_id);
    await gateway.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gateway.received).toHaveLength(1);
    expect((await bank.getAccount(acc.iban))?.balance).toBe(10);
  });

  it('keeps retrying the callback while the gateway answers 5xx, well past five attempts, with a capped delay', async () => {
    const gateway = await receiver((_call, index) =>
      index < 12 ? { status: 503, body: { error: 'down' } } : { status: 200 },
    );
    const bank = await startBank('retrybank', gateway, {
      confirmRetry: { firstDelayMs: 4, maxDelayMs: 20, horizonMs: 60_000 },
    });
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Retry', currency: 'LYD', balance: 0 });
    const started = Date.now();
    await credit(bank, { iban: acc.iban, amount: 77, reference: 'ops_retryrail' });
    const calls = await gateway.waitFor(13);
    // uncapped, 12 doublings from 4 ms would wait ~16 s; capped at 20 ms it is well under that
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(new Set(calls.map((c) => JSON.stringify(c.body))).size).toBe(1);
    await waitUntil(async () => (await bank.transactions(acc.iban))[0]?.confirmationStatus === 'CONFIRMED');
    expect((await bank.transactions(acc.iban))[0]!.confirmationAttempts).toBe(13);
  });

  it('gives up (FAILED) only once the retry horizon after the booking has passed', async () => {
    const gateway = await receiver(() => ({ status: 503, body: { error: 'down' } }));
    const bank = await startBank('horizonbank', gateway, {
      confirmRetry: { firstDelayMs: 5, maxDelayMs: 20, horizonMs: 600 },
    });
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Horizon', currency: 'LYD', balance: 0 });
    await credit(bank, { iban: acc.iban, amount: 3, reference: 'ops_horizon' });
    await waitUntil(async () => (await bank.transactions(acc.iban))[0]?.confirmationStatus === 'FAILED');
    const [line] = await bank.transactions(acc.iban);
    expect(Date.now() - line!.bookedAt.getTime()).toBeGreaterThanOrEqual(600);
    // Retried, not given up at the first refusal (how many times depends on the machine's speed).
    expect(line!.confirmationAttempts).toBeGreaterThan(1);
    expect(gateway.received).toHaveLength(line!.confirmationAttempts);
  });

  it('retries for 24 hours by default', async () => {
    // the horizon is measured on the bank's clock from the booking: a day later it is still PENDING and retrying
    let now = new Date('2025-05-01T08:00:00.000Z');
    const gateway = await receiver((_call, index) => (index < 2 ? { status: 503 } : { status: 200 }));
    const bank = await startBank('daybank', gateway, {
      clock: () => now,
      confirmRetry: { firstDelayMs: 5, maxDelayMs: 10 },
    });
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Day', currency: 'LYD', balance: 0 });
    await credit(bank, { iban: acc.iban, amount: 3, reference: 'ops_daylong' });
    now = new Date('2025-05-02T07:59:00.000Z');
    await waitUntil(async () => (await bank.transactions(acc.iban))[0]?.confirmationStatus === 'CONFIRMED');
    expect(gateway.received).toHaveLength(3);
  });

  it('keeps the confirmation pending without a gateway and sends it once one is configured', async () => {
    const bank = await startBank('latebank');
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Late', currency: 'LYD', balance: 0 });
    await credit(bank, { iban: acc.iban, amount: 5, reference: 'ops_late' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await bank.transactions(acc.iban))[0]?.confirmationStatus).toBe('PENDING');
    const gateway = await receiver();
    await bank.configureGateway({
      url: gateway.url,
      bankKey: 'sbk_latebank_x',
      internalKey: 'sik_issued_by_the_gateway_123',
    });
    const [callback] = await gateway.waitFor(1);
    expect(callback!.body.payment_reference).toBe('ops_late');
    // the gateway's issued key now authenticates both ways
    expect(callback!.headers['x-service-internal-key']).toBe('sik_issued_by_the_gateway_123');
    expect((await call(bank, 'GET', `/accounts/${acc.iban}`)).status).toBe(401);
    expect((await call(bank, 'GET', `/accounts/${acc.iban}`, undefined, 'sik_issued_by_the_gateway_123')).status).toBe(
      200,
    );
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
