import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  FAST_ENGINE,
  sessionEvents,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/** POST /payments/sessions/{id}/expire (API-CONTRACT "Refunds and ending a session early"). */
describe('a merchant ends a pending session', () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let payee: Customer;
  let merchant: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };

  const create = async () => {
    const answer = await call(base, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 2_500, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    if (answer.status !== 201) throw new Error(`session creation failed: ${answer.text}`);
    return answer.body.session_id as string;
  };
  const expire = (id: string, key = merchant.apiKey) =>
    call(base, 'POST', `/payments/sessions/${id}/expire`, { headers: bearer(key) });
  const authorize = (id: string, payer: Customer) =>
    call(base, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
  const kinds = async (id: string) => (await sessionEvents(t, id)).map((event) => event.kind);

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    bank = await startPaymentBank(t);
    payee = await bank.customer({ balance: 0 });
    merchant = await t.seed.createMerchant({ name: 'Expiring Shop' });
    other = await t.seed.createMerchant({ name: 'Other Shop' });
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('200: EXPIRED at once with payment.expired; the checkout shows it ended and refuses the payer; a second call is 409', async () => {
    const id = await create();
    const answer = await expire(id);
    expect(answer.status).toBe(200);
    expect(
      responseSchemaOf('POST', '/payments/sessions/{session_id}/expire').safeParse(answer.body).error,
    ).toBeUndefined();
    expect(answer.body).toMatchObject({ session_id: id, status: 'EXPIRED', expired_at: expect.any(String) });
    expect(await kinds(id)).toEqual(['payment.initiated', 'payment.expired']);

    const view = await call(base, 'GET', `/pay/${id}`, { headers: { accept: 'application/json' } });
    expect(view.body.status).toBe('EXPIRED');
    const payer = await bank.customer({ balance: 10_000 });
    expectError(await authorize(id, payer), 422, 'SESSION_EXPIRED');
    expect(await bank.balance(payer.iban)).toBe(10_000);

    expectError(await expire(id), 409, 'SESSION_NOT_PENDING');
    expect(await kinds(id)).toEqual(['payment.initiated', 'payment.expired']);
  });

  it("404 for another merchant's session or an unknown one; 401 without a key; nothing changes", async () => {
    const id = await create();
    expectError(await expire(id, other.apiKey), 404, 'SESSION_NOT_FOUND');
    expectError(await expire('ops_000000000000000000000000'), 404, 'SESSION_NOT_FOUND');
    expect((await call(base, 'POST', `/payments/sessions/${id}/expire`)).status).toBe(401);
    const read = await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) });
    expect(read.body.status).toBe('PENDING');
  });

  it('409 for a session already paid', async () => {
    const id = await create();
    const payer = await bank.customer({ balance: 10_000 });
    expect((await authorize(id, payer)).status).toBe(200);
    expectError(await expire(id), 409, 'SESSION_NOT_PENDING');
  });

  it('an authorization racing the expiry either wins or loses, never both', async () => {
    for (let round = 0; round < 6; round++) {
      const id = await create();
      const payer = await bank.customer({ balance: 10_000 });
      const [paid, ended] = await Promise.all([authorize(id, payer), expire(id)]);
      const read = await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) });
      if (ended.status === 200) {
        expect(paid.status).toBeGreaterThanOrEqual(400);
        expect(read.body.status).toBe('EXPIRED');
        expect(await bank.balance(payer.iban)).toBe(10_000);
      } else {
        expect(ended.body.error.code).toBe('SESSION_NOT_PENDING');
        expect(paid.status).toBe(200);
        expect(read.body.status).toBe('COMPLETED');
        expect(await bank.balance(payer.iban)).toBe(7_500);
      }
    }
  });
});
