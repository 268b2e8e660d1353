import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createLogger } from '@gateway/kernel';
import { startDemo, type Platform } from '@gateway/platform';
import { TEST_OTP } from '@gateway/bank-sandbox';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/** The start page's one-click demo payment (issue 14 item 2), in Chromium against the platform with its demo seeded. */
describe('start page: one-click demo payment', () => {
  let t: TestPlatform;
  let demo: Awaited<ReturnType<typeof startDemo>>;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestPlatform({ env: { SANDBOX_BANKS: 'on', SANDBOX_PORT_BASE: '0' } });
    demo = await startDemo(t.platform as Platform, { portBase: 0, logger: createLogger('demo', 'silent') });
    t.platform.attach(demo);
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('creates a session with the demo merchant on the server, opens its checkout, and comes back to the start page once paid', async () => {
    // The demo merchant is a test merchant: the start page offers a test payer, whose payment never moves the sandbox banks' money.
    const payer = { alias: `success@${demo.file.customers[0]!.bank_handle}`, otp: TEST_OTP };
    const balancesBefore = await Promise.all(
      demo.file.customers.map((c) => demo.banks.find((b) => b.handle === c.bank_handle)!.getAccount(c.iban)),
    );
    const page = await browser.newPage();
    try {
      const landing = await page.goto(`${t.platform.restUrl}/`);
      expect(landing?.headers()['cache-control']).toBe('no-store');
      expect(await page.textContent('#demo-payment')).toContain(
        `pay as ${payer.alias} with the one-time password ${payer.otp}`,
      );
      // The merchant's key stays on the server.
      expect(await page.content()).not.toContain(demo.file.merchant.api_key);
      await page.screenshot({ path: join(tmpdir(), 'start-page.png'), fullPage: true });

      await page.click('#demo-payment-button');
      await page.waitForURL(/\/pay\/ops_[0-9A-Za-z]+$/);
      const sessionId = new URL(page.url()).pathname.split('/').pop()!;
      expect(await page.textContent('#amount')).toBe('12.500 LYD');
      expect(await page.title()).toBe('Pay Demo Shop');

      await page.fill('#payer-value', payer.alias);
      await page.fill('#otp', payer.otp);
      await page.click('#pay-button');
      await page.waitForSelector('#receipt:not([hidden])', { timeout: 30_000 });
      expect(await page.textContent('#receipt-payee')).toBe('Demo Shop');
      expect(await page.textContent('#receipt-reference')).toMatch(/^demo-\d+$/);

      await page.waitForURL((url) => url.pathname === '/' && url.searchParams.get('status') === 'completed', {
        timeout: 30_000,
      });
      expect(new URL(page.url()).searchParams.get('session_id')).toBe(sessionId);
      const session = await t.rest('GET', `/payments/sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${demo.file.merchant.api_key}` },
      });
      expect(session.body).toMatchObject({
        status: 'COMPLETED',
        amount: 12_500,
        merchant_id: demo.file.merchant.merchant_id,
        livemode: false,
      });
      const balancesAfter = await Promise.all(
        demo.file.customers.map((c) => demo.banks.find((b) => b.handle === c.bank_handle)!.getAccount(c.iban)),
      );
      expect(balancesAfter.map((a) => a?.balance)).toEqual(balancesBefore.map((a) => a?.balance));
    } finally {
      await page.close();
    }
  }, 90_000);

  it('refuses a post from another site', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${t.platform.restUrl}/demo/payment`, { method: 'POST', headers, redirect: 'manual' });
    expect((await post({ 'sec-fetch-site': 'cross-site', origin: 'null' })).status).toBe(403);
    expect((await post({ origin: 'https://elsewhere.example' })).status).toBe(403);
  });
});
