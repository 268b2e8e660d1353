import { chromium, type Browser } from 'playwright-core';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import { ALL_OB_SCOPES, openBankingSeeds, type Grant } from '../support/open-banking';
import { eventually, FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Payment orders above the exemption limit (spec rule 5): no money moves before the customer's
 * SCA at sca_url (OTP verified by the payer's bank), then the engine executes the order; three
 * wrong OTPs or the SCA time running out FAIL it. The page is driven in Chromium.
 */
describe('Open Banking payment orders: the SCA page', () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let alice: Customer;
  let bob: Customer;
  let grant: Grant;
  let browser: Browser;

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
    return { id: answer.body.payment_order_id as string, scaUrl: answer.body.sca_url as string };
  };
  const status = async (id: string) =>
    (await call(base, 'GET', `/ob/payment-orders/${id}`, { headers: grant.headers() })).body;
  const reaches = (id: string, wanted: string) =>
    eventually(
      async () => ((await status(id)).status === wanted ? true : undefined),
      `order ${id} to reach ${wanted}`,
      30_000,
    );
  const authorize = (id: string, otp: string) => call(base, 'POST', `/ob/sca/${id}/authorize`, { body: { otp } });

  beforeAll(async () => {
    t = await startTestPlatform({
      paymentsEngine: FAST_ENGINE,
      // Long enough for a busy machine's Chromium to load the page and send two OTPs (a 4 s one ran
      // out mid-test in CI), short enough for the expiry case to wait it out.
      openBankingScaTtlMs: 12_000,
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
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
    await bank.sandbox.stop();
    await t.stop();
  });

  it('in Chromium: the page shows the payee, amount and TPP; a wrong OTP is refused, the right one executes the order', async () => {
    const { id, scaUrl } = await create(150_000);
    expect(new URL(scaUrl).pathname).toBe(`/ob/sca/${id}`);
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${base}/ob/sca/${id}`);
    expect(await page.textContent('#tpp-name')).toBe('Sofa Shop App');
    expect(await page.textContent('#payee-iban')).toBe(bob.iban);
    expect(await page.textContent('#amount')).toMatch(/^150\.000 LYD$/);
    expect(await bank.movements(id)).toEqual([]);

    await page.fill('#otp', '000000');
    await page.click('#authorize-button');
    await page.waitForURL((url) => url.searchParams.get('error') === 'OTP_INVALID');
    expect(await page.textContent('#otp-error')).toMatch(/not accepted/);
    expect(await page.textContent('#attempts')).toBe('2 attempts left');

    await page.fill('#otp', alice.otp);
    await page.click('#authorize-button');
    await page.waitForSelector('#closed');
    expect(await page.getAttribute('#closed', 'data-status')).toMatch(/^(PROCESSING|COMPLETED)$/);
    await reaches(id, 'COMPLETED');
    expect(await bank.balance(bob.iban)).toBe(150_000);
    await context.close();
  });

  it('the JSON view and authorize: documented shapes; another state is 409 PAYMENT_ORDER_NOT_PENDING_SCA', async () => {
    const { id } = await create(120_000);
    const view = await call(base, 'GET', `/ob/sca/${id}`, { headers: { accept: 'application/json' } });
    expect(view.status).toBe(200);
    expect(responseSchemaOf('GET', '/ob/sca/{payment_order_id}').safeParse(view.body).error).toBeUndefined();
    expect(view.body).toMatchObject({
      payment_order_id: id,
      status: 'PENDING_SCA',
      tpp_name: 'Sofa Shop App',
      payee_iban: bob.iban,
      amount: 120_000,
      otp_attempts_left: 3,
    });
    const accepted = await authorize(id, alice.otp);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ payment_order_id: id, status: 'PROCESSING' });
    await reaches(id, 'COMPLETED');
    // The same authorisation sent again (its answer lost) is told where the order stands; another OTP is refused.
    const again = await authorize(id, alice.otp);
    expect([again.status, again.body]).toEqual([200, { payment_order_id: id, status: 'COMPLETED' }]);
    expectError(await authorize(id, '000000'), 409, 'PAYMENT_ORDER_NOT_PENDING_SCA');
    expect(await bank.movements(id)).toHaveLength(2);
    expectError(await authorize('po_unknown', alice.otp), 404, 'PAYMENT_ORDER_NOT_FOUND');
  });

  it('three wrong OTPs fail the order, nothing moved', async () => {
    const { id } = await create(130_000);
    expectError(await authorize(id, '111111'), 401, 'OTP_INVALID');
    expectError(await authorize(id, '111111'), 401, 'OTP_INVALID');
    expectError(await authorize(id, '111111'), 401, 'OTP_INVALID');
    expect(await status(id)).toMatchObject({ status: 'FAILED', failure_code: 'OTP_INVALID' });
    expectError(await authorize(id, alice.otp), 409, 'PAYMENT_ORDER_NOT_PENDING_SCA');
    expect(await bank.movements(id)).toEqual([]);
  });

  it('an order left in PENDING_SCA past its SCA time FAILS (SCA_EXPIRED), by the job', async () => {
    const { id } = await create(140_000);
    await reaches(id, 'FAILED');
    expect((await status(id)).failure_code).toBe('SCA_EXPIRED');
    expect(await bank.movements(id)).toEqual([]);
  });
});
