import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { SandboxBank } from '../sandbox-bank';
import { call, startReceiver, startTestBank, type Receiver } from '../testing/support';

describe('POST /service/callbacks/v1/alias/enroll', () => {
  let db: Database;
  let bank: SandboxBank;
  let gateway: Receiver;

  beforeAll(async () => {
    db = await openTestDatabase();
    gateway = await startReceiver((received) =>
      received.body.npt_handle === 'taken'
        ? { status: 409, body: { error: { code: 'HANDLE_TAKEN', message: 'Handle already claimed' } } }
        : { status: 201, body: { alias: received.body.npt_handle, iban: received.body.iban, status: 'ACTIVE' } },
    );
    bank = await startTestBank(db, {
      handle: 'aliasbank',
      institutionCode: '003',
      gatewayUrl: `${gateway.url}/`,
      bankKey: 'sbk_aliasbank_secret',
    });
  });
  afterAll(async () => {
    await bank.stop();
    await gateway.stop();
    await db.close();
  });

  it('claims the alias at the gateway with the bank key and relays the answer', async () => {
    const acc = await bank.openAccount({
      customerRef: 'cust-alias',
      holderName: 'Amal Ben Ali',
      currency: 'LYD',
      balance: 0,
    });
    const answer = await call(bank, 'POST', '/service/callbacks/v1/alias/enroll', {
      alias: 'amal',
      account_iban: acc.iban,
      customer_ref: 'cust-alias',
    });
    expect(answer).toMatchObject({ status: 201, body: { alias: 'amal', iban: acc.iban, status: 'ACTIVE' } });
    const claim = gateway.received.at(-1)!;
    expect(claim.method).toBe('POST');
    expect(claim.path).toBe('/v1/identity/claim');
    expect(claim.headers['x-service-bank-key']).toBe('sbk_aliasbank_secret');
    expect(claim.headers['x-service-internal-key']).toBeUndefined();
    expect(claim.body).toEqual({
      npt_handle: 'amal',
      iban: acc.iban,
      customer_display_name: 'Amal Ben Ali',
      bank_customer_ref: 'cust-alias',
    });
  });

  it("relays the gateway's refusal (409 HANDLE_TAKEN) as is", async () => {
    const acc = await bank.openAccount({ customerRef: 'cust-taken', holderName: 'T', currency: 'LYD', balance: 0 });
    const answer = await call(bank, 'POST', '/service/callbacks/v1/alias/enroll', {
      alias: 'taken',
      account_iban: acc.iban,
      customer_ref: 'cust-taken',
    });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('HANDLE_TAKEN');
  });

  it("refuses an account that is not the customer's without calling the gateway", async () => {
    const acc = await bank.openAccount({ customerRef: 'cust-owner', holderName: 'O', currency: 'LYD', balance: 0 });
    const before = gateway.received.length;
    const answer = await call(bank, 'POST', '/service/callbacks/v1/alias/enroll', {
      alias: 'thief',
      account_iban: acc.iban,
      customer_ref: 'someone-else',
    });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('ACCOUNT_NOT_FOUND');
    expect(gateway.received.length).toBe(before);
  });

  it('answers 503 GATEWAY_NOT_CONFIGURED when the bank has no gateway yet', async () => {
    const lonely = await startTestBank(db, { handle: 'lonelybank', institutionCode: '004' });
    try {
      const acc = await lonely.openAccount({ customerRef: 'c', holderName: 'L', currency: 'LYD', balance: 0 });
      const answer = await call(lonely, 'POST', '/service/callbacks/v1/alias/enroll', {
        alias: 'lonely',
        account_iban: acc.iban,
        customer_ref: 'c',
      });
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('GATEWAY_NOT_CONFIGURED');
    } finally {
      await lonely.stop();
    }
  });

  it('requires the internal key like every call', async () => {
    const answer = await call(
      bank,
      'POST',
      '/service/callbacks/v1/alias/enroll',
      { alias: 'x', account_iban: 'x', customer_ref: 'x' },
      null,
    );
    expect(answer.status).toBe(401);
  });
});
