import { call, expectError } from '@gateway/rest-compat/testing';
import { ALL_OB_SCOPES, openBankingSeeds, type Grant } from '../support/open-banking';
import { eventually, FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const SCA_TTL_MS = 4_000;
/** open-banking's SCA_EXPIRY_MARGIN_MS: the expiry job waits this long past the deadline. */
const EXPIRY_MARGIN_MS = 1_000;

/**
 * The SCA deadline is the time the customer's authorisation arrives, not the time the payer's
 * bank answers it: a slow OTP check (or a slow machine) never fails a payment authorised in
 * time, while the expiry job runs every 200 ms. An order nobody authorised in time still FAILS.
 */
describe('Open Banking payment orders: the SCA deadline and a slow bank', () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let alice: Customer;
  let bob: Customer;
  let grant: Grant;

  const create = async (amount: number) => {
    const answer = await call(base, 'POST', '/ob/payment-orders', {
      headers: grant.headers(),
      body: {
        source_account_id: grant.accountIds[0],
        destination: { type: 'iban', value: bob.iban },
        amount,
        currency: 'LYD',
        description: 'New sofa',
      },
    });
    expect(answer.status).toBe(202);
    return answer.body.payment_order_id as string;
  };
  const status = async (id: string) =>
    (await call(base, 'GET', `/ob/payment-orders/${id}`, { headers: grant.headers() })).body;
  const reaches = (id: string, wanted: string) =>
    eventually(
      async () => ((await status(id)).status === wanted ? true : undefined),
      `order ${id} to reach ${wanted}`,
      20_000,
    );
  const authorize = (id: string, otp: string) => call(base, 'POST', `/ob/sca/${id}/authorize`, { body: { otp } });
  const expiresAt = async (id: string) =>
    Date.parse((await call(base, 'GET', `/ob/sca/${id}`, { headers: { accept: 'application/json' } })).body.expires_at);
  const until = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

  beforeAll(async () => {
    t = await startTestPlatform({
      paymentsEngine: FAST_ENGINE,
      openBankingScaTtlMs: SCA_TTL_MS,
      openBankingJobs: { scaExpiryIntervalMs: 200 },
    });
    base = t.platform.restUrl;
    const ob = await openBankingSeeds(t);
    bank = await ob.bank();
    alice = await bank.customer({ balance: 1_000_000 });
    bob = await bank.customer({ balance: 0 });
    const tpp = await t.seed.registerTpp({ name: 'Sofa Shop App' });
    grant = await ob.grant(
      tpp.tppAccessToken,
      bank.handle,
      [{ iban: alice.iban, bankHandle: bank.handle }],
      ALL_OB_SCOPES,
    );
  });
  afterEach(() => bank.sandbox.clearFaults());
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('the right OTP sent in time executes the order although the bank answers after the SCA time', async () => {
    const before = await bank.balance(bob.iban);
    const id = await create(145_000);
    const deadline = await expiresAt(id);
    // Sent 2 s before the deadline; the bank's OTP check takes 3.5 s (under open-banking's 4 s
    // attempt deadline), so it answers more than the expiry's 1 s margin after the deadline, when
    // the expiry job has had several turns.
    await until(deadline - 2_000);
    bank.sandbox.injectFaults({ latencyMs: 3_500, operations: ['verify'], times: 1 });
    const sentAt = Date.now();
    const accepted = await authorize(id, alice.otp);
    expect(sentAt).toBeLessThan(deadline);
    expect(Date.now()).toBeGreaterThan(deadline + EXPIRY_MARGIN_MS);
    expect([accepted.status, accepted.body]).toEqual([200, { payment_order_id: id, status: 'PROCESSING' }]);
    await reaches(id, 'COMPLETED');
    expect(await bank.balance(bob.iban)).toBe(before + 145_000);
  });

  it('a wrong OTP sent in time and refused after the SCA time: the order still FAILS (SCA_EXPIRED), nothing moved', async () => {
    const id = await create(146_000);
    const deadline = await expiresAt(id);
    await until(deadline - 3_000);
    bank.sandbox.injectFaults({ latencyMs: 3_500, operations: ['verify'], times: 1 });
    expectError(await authorize(id, '111111'), 401, 'OTP_INVALID');
    // Too late for another try: refused, and the order FAILS.
    expectError(await authorize(id, alice.otp), 409, 'PAYMENT_ORDER_NOT_PENDING_SCA');
    await reaches(id, 'FAILED');
    expect((await status(id)).failure_code).toBe('SCA_EXPIRED');
    expect(await bank.movements(id)).toEqual([]);
  });

  it('an OTP sent after the SCA time is refused, the bank is not asked, and the order FAILS (SCA_EXPIRED)', async () => {
    const id = await create(147_000);
    await until((await expiresAt(id)) + 50);
    const verifies = bank.sandbox.requestCounts().byOperation.verify;
    expectError(await authorize(id, alice.otp), 409, 'PAYMENT_ORDER_NOT_PENDING_SCA');
    expect(bank.sandbox.requestCounts().byOperation.verify).toBe(verifies);
    await reaches(id, 'FAILED');
    expect((await status(id)).failure_code).toBe('SCA_EXPIRED');
    expect(await bank.movements(id)).toEqual([]);
  });
});
