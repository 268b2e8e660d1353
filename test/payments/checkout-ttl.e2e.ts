import { call, expectError } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  sessionEvents,
  sessionReaches,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const SESSION_TTL_SECONDS = 4;
/** payments' SESSION_EXPIRY_MARGIN_MS: the expiry waits this long past expires_at. */
const EXPIRY_MARGIN_MS = 1_000;

/**
 * A session's TTL is the time the payer's authorization arrives, not the time the payer's bank
 * answers it: a slow OTP check (or a slow machine) never expires a payment authorized in time,
 * while the expiry job runs every 150 ms. A session nobody authorized in time still EXPIRES.
 */
describe('checkout: the session TTL and a slow bank', () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let merchant: { merchantId: string; apiKey: string };
  let payee: Customer;

  const create = async (amount: number) => {
    const answer = await call(base, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect(answer.status).toBe(201);
    return { id: answer.body.session_id as string, expiresAt: Date.parse(answer.body.expires_at) };
  };
  const authorize = (id: string, payer: Customer, otp = payer.otp) =>
    call(base, 'POST', `/pay/${id}/authorize`, { body: { payer: { type: 'alias', value: payer.alias }, otp } });
  const read = async (id: string) =>
    (await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) })).body;
  const kinds = async (id: string) => (await sessionEvents(t, id)).map((event) => event.kind);
  // The merchant reads EXPIRED at once; the job records the move (payment.expired) once the margin passed.
  const expires = async (id: string) => {
    await eventually(
      async () => ((await kinds(id)).includes('payment.expired') ? true : undefined),
      `payment.expired of ${id}`,
    );
    expect(await read(id)).toMatchObject({ status: 'EXPIRED', expired_at: expect.any(String) });
  };
  const until = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

  beforeAll(async () => {
    // One 8 s attempt at the core: the 3.5 s OTP check below is answered, not timed out, on a busy
    // machine too (a 4 s attempt timed out once in a fresh-clone CI: 500 ms was too thin a margin).
    t = await startTestPlatform({
      paymentsEngine: { ...FAST_ENGINE, coreTimeoutMs: 8_000, coreAttempts: 1, coreBudgetMs: 9_000 },
      paymentsSessionTtlSeconds: SESSION_TTL_SECONDS,
    });
    base = t.platform.restUrl;
    bank = await startPaymentBank(t);
    merchant = await t.seed.createMerchant({ name: 'Slow Bank Shop' });
    payee = await bank.customer({ balance: 0 });
  });
  afterEach(() => bank.sandbox.clearFaults());
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('the right OTP sent in time pays the session although the bank answers after its TTL', async () => {
    const payer = await bank.customer({ balance: 100_000 });
    const before = await bank.balance(payee.iban);
    const { id, expiresAt } = await create(12_000);
    // Sent 2 s before expires_at; the bank's OTP check takes 3.5 s, so it answers more than the
    // expiry's 1 s margin after expires_at, when the expiry job has had several turns.
    await until(expiresAt - 2_000);
    bank.sandbox.injectFaults({ latencyMs: 3_500, operations: ['verify'], times: 1 });
    const sentAt = Date.now();
    const answer = authorize(id, payer);
    await until(expiresAt + EXPIRY_MARGIN_MS + 300);
    // Still being checked: not EXPIRED for the merchant either.
    expect((await read(id)).status).toBe('PENDING');
    const accepted = await answer;
    expect(sentAt).toBeLessThan(expiresAt);
    expect(Date.now()).toBeGreaterThan(expiresAt + EXPIRY_MARGIN_MS);
    expect(accepted.status).toBe(200);
    expect(['PROCESSING', 'COMPLETED']).toContain(accepted.body.status);
    await sessionReaches(t, merchant.apiKey, id, 'COMPLETED');
    expect(await bank.balance(payee.iban)).toBe(before + 12_000);
    expect(await kinds(id)).not.toContain('payment.expired');
  });

  it('a wrong OTP sent in time and refused after the TTL: the session still EXPIRES (payment.expired), nothing moved', async () => {
    const payer = await bank.customer({ balance: 100_000 });
    const { id, expiresAt } = await create(13_000);
    await until(expiresAt - 2_000);
    bank.sandbox.injectFaults({ latencyMs: 3_500, operations: ['verify'], times: 1 });
    expectError(await authorize(id, payer, '111111'), 401, 'OTP_INVALID');
    // Too late for another try: refused without asking the bank, and the session EXPIRES.
    const verifies = bank.sandbox.requestCounts().byOperation.verify;
    expectError(await authorize(id, payer), 422, 'SESSION_EXPIRED');
    expect(bank.sandbox.requestCounts().byOperation.verify).toBe(verifies);
    await expires(id);
    expect(await kinds(id)).toEqual(['payment.initiated', 'payment.expired']);
    expect(await bank.movements(id)).toEqual([]);
  });

  it('an authorization sent after the TTL is refused, the bank is not asked, and the session EXPIRES (payment.expired)', async () => {
    const payer = await bank.customer({ balance: 100_000 });
    const { id, expiresAt } = await create(14_000);
    await until(expiresAt + 50);
    const verifies = bank.sandbox.requestCounts().byOperation.verify;
    expectError(await authorize(id, payer), 422, 'SESSION_EXPIRED');
    expect(bank.sandbox.requestCounts().byOperation.verify).toBe(verifies);
    await expires(id);
    expect(await kinds(id)).toEqual(['payment.initiated', 'payment.expired']);
    expect(await bank.movements(id)).toEqual([]);
  });
});
