import { call, expectError } from '@gateway/rest-compat/testing';
import { bearer, FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * OTP guesses are limited per customer and client, not only per session (issue 13, "Headers and
 * pages"; issue 28, "no anonymous lock-out"): three wrong OTPs fail a session, but whoever can
 * open sessions could keep guessing one customer's OTP on new ones. After five refused OTPs in
 * fifteen minutes from one address the next check from it for that customer is refused before
 * their bank is asked (429 RATE_LIMITED with Retry-After); from another address the customer pays.
 * The platform believes X-Forwarded-For from loopback here (TRUST_PROXY), as behind a proxy.
 */
describe("a customer's OTP across sessions", () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let merchant: { merchantId: string; apiKey: string };
  let payee: Customer;

  const create = async () => {
    const answer = await call(base, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    if (answer.status !== 201) throw new Error(`session creation failed: ${answer.text}`);
    return answer.body.session_id as string;
  };
  const authorize = (id: string, payer: Customer, otp: string, from = '203.0.113.10') =>
    call(base, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp },
      headers: { 'x-forwarded-for': from },
    });
  const verifications = () => bank.sandbox.requestCounts().byOperation.verify;

  beforeAll(async () => {
    // Generous core deadlines: on a busy machine a slow OTP check must not turn into a timeout (given back, not counted).
    t = await startTestPlatform({
      env: { TRUST_PROXY: 'loopback' },
      paymentsEngine: { ...FAST_ENGINE, coreTimeoutMs: 5_000, coreBudgetMs: 8_000 },
    });
    base = t.platform.restUrl;
    bank = await startPaymentBank(t);
    merchant = await t.seed.createMerchant({ name: 'Guarded Shop' });
    payee = await bank.customer({ balance: 0 });
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('five refused OTPs over new sessions from one address lock that address out: the sixth check is 429 with Retry-After and never reaches the bank', async () => {
    const payer = await bank.customer({ otp: '424242' });
    // Two guesses per session at most, so no session fails: only the guard can stop this.
    const sessions = [await create(), await create(), await create()];
    for (const [i, session] of [sessions[0], sessions[0], sessions[1], sessions[1], sessions[2]].entries()) {
      const wrong = await authorize(session!, payer, `11111${i}`);
      expectError(wrong, 401, 'OTP_INVALID');
    }
    const asked = verifications();
    const id = await create();
    const locked = await authorize(id, payer, '424242');
    expectError(locked, 429, 'RATE_LIMITED');
    expect(locked.body.error.detail).toMatch(
      /too many refused one-time passwords for this customer; try again in \d+ s/,
    );
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    expect(verifications()).toBe(asked);
    const session = await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) });
    expect(session.body.status).toBe('PENDING');

    // Another customer of the same bank is not affected.
    const other = await bank.customer({ otp: '515151' });
    const paid = await authorize(await create(), other, '515151');
    expect(paid.status).toBe(200);
  });

  it("someone else's wrong OTPs, sent with no credential from one address, never stop the customer paying from their own (IPv6 counted by /64)", async () => {
    const payer = await bank.customer({ otp: '818181' });
    const sessions = [await create(), await create(), await create()];
    // Five wrong OTPs over three sessions, from addresses of one IPv6 /64: one client.
    for (const [i, session] of [sessions[0], sessions[0], sessions[1], sessions[1], sessions[2]].entries()) {
      expectError(await authorize(session!, payer, `33333${i}`, `2001:db8:7:7::${i + 1}`), 401, 'OTP_INVALID');
    }
    expectError(await authorize(await create(), payer, '818181', '2001:db8:7:7:ffff::1'), 429, 'RATE_LIMITED');
    // The customer, from their own address, with a fresh session.
    const paid = await authorize(await create(), payer, '818181', '198.51.100.20');
    expect(paid.status).toBe(200);
  });

  it('accepted OTPs do not count: a customer paying many times is never locked', async () => {
    const payer = await bank.customer({ otp: '616161' });
    for (let i = 0; i < 7; i += 1) {
      const paid = await authorize(await create(), payer, '616161');
      expect([i, paid.status]).toEqual([i, 200]);
    }
  });

  it('concurrent guesses on many sessions are counted one by one: at most five reach the bank', async () => {
    const payer = await bank.customer({ otp: '717171' });
    const sessions = await Promise.all(Array.from({ length: 12 }, () => create()));
    const asked = verifications();
    const answers = await Promise.all(
      sessions.map((id, i) => authorize(id, payer, `2222${String(i).padStart(2, '0')}`)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
    expect(verifications() - asked).toBe(5);
  });
});
