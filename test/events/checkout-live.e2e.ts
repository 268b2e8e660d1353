import { chromium, type Browser } from 'playwright-core';
import { bearer, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/** The checkout page follows the payment live over graphql-ws (the router's subscription via rest-compat). */
describe('checkout page: live status', () => {
  let t: TestPlatform;
  let payerBank: PaymentBank;
  let payeeBank: PaymentBank;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    payerBank = await startPaymentBank(t);
    // A slow credit confirmation keeps the session in SETTLEMENT_PENDING long enough to watch.
    payeeBank = await startPaymentBank(t, { confirmDelayMs: { min: 800, max: 1000 } });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await payerBank.sandbox.stop();
    await payeeBank.sandbox.stop();
    await t.stop();
  });

  it('shows each status the subscription reports, ending COMPLETED, without polling for it', async () => {
    const merchant = await t.seed.createMerchant();
    const payee = await payeeBank.customer({ balance: 0 });
    const payer = await payerBank.customer();
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 4200, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    const page = await browser.newPage();
    const polls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/status')) polls.push(request.url());
    });
    await page.goto(created.body.checkout_url.replace(/^https?:\/\/[^/]+/, t.platform.restUrl));
    // Every status the page shows, in order, recorded in the page itself.
    // (A string: this repository's TypeScript has no DOM library.)
    await page.evaluate(`(() => {
      const seen = (window.seen = []);
      const section = document.getElementById('status');
      new MutationObserver(() => {
        const status = section.dataset.status;
        if (status && seen[seen.length - 1] !== status) seen.push(status);
      }).observe(section, { attributes: true, attributeFilter: ['data-status'] });
    })()`);
    await page.fill('#payer-value', payer.alias);
    await page.fill('#otp', payer.otp);
    await page.click('#pay-button');
    await page.waitForSelector('#status[data-status="COMPLETED"]', { timeout: 30_000 });
    const seen = (await page.evaluate('window.seen')) as string[];
    expect(await page.getAttribute('#status', 'data-live')).toBe('subscription');
    expect(seen).toContain('SETTLEMENT_PENDING');
    expect(seen.at(-1)).toBe('COMPLETED');
    // At most the one read of the final redirect address: the statuses themselves came live.
    expect(polls.length).toBeLessThanOrEqual(1);
    await page.close();
  });
});
