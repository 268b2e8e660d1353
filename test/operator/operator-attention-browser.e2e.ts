import { chromium, type Browser } from 'playwright-core';
import { outcomeNeverKnown, startMinimalBank, type MinimalBank } from '../support/minimal-bank';
import { bearer, eventually, SHORT_DEADLINES_ENGINE, sessionReaches } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The operator console's attention list (issue 50) in Chromium: a payment whose debit outcome no
 * core answer establishes (FAILED, CBS_OUTCOME_UNKNOWN) is shown with the engine's evidence, and
 * the operator refunds the payer from the page, behind a confirmation; the engine does it once.
 */
describe('operator console: the attention list in a browser', () => {
  let t: TestPlatform;
  /** A bank core per case: its faults are its own. */
  const banks: MinimalBank[] = [];
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: SHORT_DEADLINES_ENGINE });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const bank of banks) await bank.core.stop();
    await t?.stop();
  });

  it.each([
    ['1280 px', { width: 1280, height: 860 }],
    ['375 px', { width: 375, height: 667 }],
  ])(
    'shows a movement that needs a person with its evidence, and refunds the payer from the page, audited, at %s',
    async (_width, viewport) => {
      const bank = await startMinimalBank(t);
      banks.push(bank);
      const merchant = await t.seed.createMerchant();
      const payer = await bank.customer({ balance: 10_000 });
      const payee = await bank.customer({ balance: 0 });
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 2_200, currency: 'LYD', destination: { type: 'iban', value: payee.iban } },
      });
      expect(created.status).toBe(201);
      const id = created.body.session_id as string;
      // Booked, then only redirects and HTML for the debit, and no statement: nothing can be established.
      bank.core.fail(
        { path: '/accounts/debit', kind: 'book-then-status', status: 302, body: '<html>moved</html>' },
        ...outcomeNeverKnown('/accounts/debit', payer.iban),
      );
      await t.rest('POST', `/pay/${id}/authorize`, {
        body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      });
      expect((await sessionReaches(t, merchant.apiKey, id, 'FAILED', 15_000)).failure_code).toBe('CBS_OUTCOME_UNKNOWN');

      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      await page.goto(`${t.platform.restUrl}/operator`);
      await page.fill('#admin-key', t.adminKey);
      await page.click('#sign-in-button');
      await page.click('#nav-attention');
      const item = page.locator(`#attention li[data-id="${id}"]`);
      await item.waitFor();
      const text = (await item.textContent())!;
      expect(text).toContain('2.200 LYD');
      expect(text).toContain('resolve_debit');
      expect(text).toContain('CBS_OUTCOME_UNKNOWN');
      expect(text).toContain(payer.iban);

      // A note is required by the API: its refusal is shown as it is, nothing is done.
      await item.locator('select.resolution').selectOption('REFUND_PAYER');
      await item.locator('button.resolve').click();
      await page.waitForSelector('#resolve-confirm-dialog[open]');
      expect(await page.textContent('#resolve-confirm-effect')).toContain('reverses the debit, once');
      await page.click('#resolve-confirm-ok');
      await item.locator('.error').waitFor();
      expect(await item.locator('.error').textContent()).toMatch(/^VALIDATION_ERROR /);

      await item.locator('input.resolution-note').fill('core team confirms the debit was booked');
      await item.locator('button.resolve').click();
      await page.click('#resolve-confirm-ok');
      await page.waitForSelector('#attention-resolved');
      expect(await page.textContent('#attention-resolved')).toContain(
        `${id}: REFUND_PAYER: core team confirms the debit was booked`,
      );
      await item.waitFor({ state: 'detached' });
      await eventually(async () => (bank.core.balance(payer.iban) === 10_000 ? true : undefined), 'the refund');
      const audited = await t.rest('GET', `/admin/audit?action=attention.resolved&target=${id}`, {
        headers: { 'x-service-admin-key': t.adminKey },
      });
      expect(audited.body.entries).toHaveLength(1);
      // Nothing wider than the screen.
      const widths = await page.evaluate(() => ({
        content: (globalThis as any).document.documentElement.scrollWidth,
        screen: (globalThis as any).document.documentElement.clientWidth,
      }));
      expect(widths.content).toBeLessThanOrEqual(widths.screen);
      expect(errors).toEqual([]);
      await context.close();
    },
    90_000,
  );
});
