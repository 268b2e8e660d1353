import { chromium, type Browser } from 'playwright-core';
import { openBankingSeeds, type OpenBankingSeeds } from '../support/open-banking';
import type { PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** GET /ob/my-consents in a real browser (Debian's chromium driven by playwright-core) on a phone-sized screen: sign in, see, revoke. */
describe('my consents page in a browser', () => {
  let t: TestPlatform;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestPlatform();
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
    await bank?.sandbox.stop();
    await t?.stop();
  });

  it('signs in with alias and OTP at 375 px, lists the consent and revokes it', async () => {
    const alice = await bank.customer();
    const tpp = await t.seed.registerTpp({ name: 'Budget App' });
    const grant = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    try {
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('pageerror', (error) => refused.push(error.message));
      page.on(
        'console',
        (message) => message.type() === 'error' && message.text().startsWith('Refused') && refused.push(message.text()),
      );
      await page.goto(`${t.platform.restUrl}/ob/my-consents?bank=${bank.handle}`);
      expect(await page.inputValue('#bank-handle')).toBe(bank.handle);

      await page.fill('#customer-value', alice.alias);
      await page.fill('#otp', alice.otp === '111111' ? '222222' : '111111');
      await page.click('#sign-in-button');
      await page.waitForSelector('#message[data-error="OTP_INVALID"]');

      await page.fill('#bank-handle', bank.handle);
      await page.fill('#customer-value', alice.alias);
      await page.fill('#otp', alice.otp);
      await page.click('#sign-in-button');
      const item = page.locator(`li.consent[data-consent-id="${grant.consentId}"]`);
      await item.waitFor();
      expect(await item.locator('.tpp-name').textContent()).toBe('Budget App');
      expect(await item.locator('.kind').textContent()).toBe('Account access');
      // Nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

      await item.locator('button.revoke-button').click();
      await page.waitForSelector(`#revoked[data-revoked="${grant.consentId}"]`);
      expect(await page.locator(`li.consent[data-consent-id="${grant.consentId}"]`).count()).toBe(0);
      const row = await t.platform.db.knex('open_banking.consents').where({ id: grant.consentId }).first();
      expect(row).toMatchObject({ status: 'REVOKED', revoked_by: 'customer' });
      expect(refused).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
