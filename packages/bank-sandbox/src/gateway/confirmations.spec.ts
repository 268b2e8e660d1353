import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { SandboxBank } from '../sandbox-bank';
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

  const startBank = async (handle: string, gateway?: Receiver, institutionCode = '002'): Promise<SandboxBank> => {
    const bank = await startTestBank(db, { handle, institutionCode, ...(gateway ? { gatewayUrl: gateway.url, bankKey: `sbk_${handle}_x` } : {}) });
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

  it('posts credit-confirmed to the gateway with the internal key and the spec fields, rrn kept on the transaction', async () => {
    const gateway = await receiver();
    const bank = await startBank('railbank', gateway);
    const acc = await bank.openAccount({ customerRef: 'creditor', holderName: 'Cred Itor', currency: 'LYD', balance: 0 });

    const answer = await credit(bank, { iban: acc.iban, amount: 4_200, reference: 'ops_rail_1', debtor_bank: 'otherbank', session_id: 'ops_rail_1' });
    expect(answer.status).toBe(200);
    const [callback] = await gateway.waitFor(1);
    expect(callback!.method).toBe('POST');
    expect(callback!.path).toBe('/service/callbacks/v1/payment/credit-confirmed');
    expect(callback!.headers['x-service-internal-key']).toBe(TEST_INTERNAL_KEY);
    expect(callback!.body).toEqual({
      payment_reference: 'ops_rail_1',
      session_id: 'ops_rail_1',
      creditor_iban: acc.iban,
      amount: 4_200,
      currency: 'LYD',
      rrn: expect.stringMatching(/^\d{12}$/),
    });
    const [booked] = await bank.transactions(acc.iban);
    expect(booked!.rrn).toBe(callback!.body.rrn);
    await waitUntil(async () => (await bank.transactions(acc.iban))[0]?.confirmationStatus === 'CONFIRMED');
  });

  it('sends nothing for an on-us credit (debtor bank is this bank) or a credit without debtor bank', async () => {
    const gateway = await receiver();
    const bank = await startBank('onusbank', gateway);
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'On Us', currency: 'LYD', balance: 0 });
    expect((await credit(bank, { iban: acc.iban, amount: 1, reference: 'ops_onus_1', debtor_bank: 'onusbank' })).status).toBe(200);
    expect((await credit(bank, { iban: acc.iban, amount: 1, reference: 'ops_onus_2' })).status).toBe(200);
    // a rail credit after them is the first and only callback
    await credit(bank, { iban: acc.iban, amount: 1, reference: 'ops_onus_3', debtor_bank: 'elsewhere' });
    await gateway.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gateway.received.map((c) => c.body.payment_reference)).toEqual(['ops_onus_3']);
    expect((await bank.transactions(acc.iban)).filter((t) => t.rrn !== null)).toHaveLength(1);
  });

  it('does not confirm a retried (deduplicated) rail credit twice', async () => {
    const gateway = await receiver();
    const bank = await startBank('dupbank', gateway);
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Dup', currency: 'LYD', balance: 0 });
    const body = { iban: acc.iban, amount: 10, reference: 'ops_dup_rail', debtor_bank: 'elsewhere' };
    const [a, b] = await Promise.all([credit(bank, body), credit(bank, body)]);
    expect(a.body.transaction_id).toBe(b.body.transaction_id);
    await gateway.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gateway.received).toHaveLength(1);
    expect((await bank.getAccount(acc.iban))?.balance).toBe(10);
  });

  it('retries the callback while the gateway answers 5xx', async () => {
    const gateway = await receiver((_call, index) => (index < 1 ? { status: 503, body: { error: 'down' } } : { status: 200 }));
    const bank = await startBank('retrybank', gateway);
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Retry', currency: 'LYD', balance: 0 });
    await credit(bank, { iban: acc.iban, amount: 77, reference: 'ops_retry_rail', debtor_bank: 'elsewhere', session_id: 'ops_retry_rail' });
    const calls = await gateway.waitFor(2);
    expect(calls[1]!.body).toEqual(calls[0]!.body);
    await waitUntil(async () => (await bank.transactions(acc.iban))[0]?.confirmationStatus === 'CONFIRMED');
  });

  it('keeps the confirmation pending without a gateway and sends it once one is configured', async () => {
    const bank = await startBank('latebank');
    const acc = await bank.openAccount({ customerRef: 'c', holderName: 'Late', currency: 'LYD', balance: 0 });
    await credit(bank, { iban: acc.iban, amount: 5, reference: 'ops_late', debtor_bank: 'elsewhere', session_id: 'ops_late' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await bank.transactions(acc.iban))[0]?.confirmationStatus).toBe('PENDING');
    const gateway = await receiver();
    await bank.configureGateway({ url: gateway.url, bankKey: 'sbk_latebank_x', internalKey: 'sik_issued_by_the_gateway_123' });
    const [callback] = await gateway.waitFor(1);
    expect(callback!.body.payment_reference).toBe('ops_late');
    // the gateway's issued key now authenticates both ways
    expect(callback!.headers['x-service-internal-key']).toBe('sik_issued_by_the_gateway_123');
    expect((await call(bank, 'GET', `/accounts/${acc.iban}`)).status).toBe(401);
    expect((await call(bank, 'GET', `/accounts/${acc.iban}`, undefined, 'sik_issued_by_the_gateway_123')).status).toBe(200);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
