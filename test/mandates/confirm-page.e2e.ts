import { chromium, type Browser } from 'playwright-core';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import { bearer, FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The mandate confirmation page at confirm_url (API-CONTRACT "Mandates"): merchant, amount,
 * interval and start date, one field for the OTP; a plain form that works without script, at
 * phone width, with the customer pages' security headers. Driven in Chromium.
 */
describe('mandate confirmation page', () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let customer: Customer;
  let merchant: { merchantId: string; apiKey: string };
  let browser: Browser;

  const create = async (patch: Record<string, unknown> = {}) => {
    const answer = await call(base, 'POST', '/recurring/mandates', {
      headers: bearer(merchant.apiKey),
      body: {
        customer_alias: customer.alias,
        amount: 4_990,
        currency: 'LYD',
        interval: 'monthly',
        description: 'Streaming <Premium>',
        start_date: '2026-12-31',
        ...patch,
      },
    });
    expect(answer.status).toBe(201);
    return answer.body as { mandate_id: string; confirm_url: string };
  };
  const record = async (id: string) =>
    (await call(base, 'GET', `/recurring/mandates/${id}`, { headers: bearer(merchant.apiKey) })).body;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    bank = await startPaymentBank(t);
    customer = await bank.customer({ otp: '482910' });
    const shop = await bank.customer({ balance: 0 });
    merchant = await t.seed.createMerchant({ name: 'Films & "Shows"', settlement_iban: shop.iban });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
    await bank.sandbox.stop();
    await t.stop();
  });

  it('serves the page with escaped text and the security headers; JSON clients get the view; an unknown id is a 404 page', async () => {
    const { mandate_id: id } = await create();
    const html = await fetch(`${base}/mandates/${id}/confirm`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(html.headers.get('x-frame-options')).toBe('DENY');
    expect(html.headers.get('referrer-policy')).toBe('no-referrer');
    expect(html.headers.get('cache-control')).toBe('no-store');
    const text = await html.text();
    expect(text).toContain('Streaming &lt;Premium&gt;');
    expect(text).toContain('Films &amp; &quot;Shows&quot;');
    expect(text).not.toContain('<Premium>');
    // The link is the only capability: the page shows the alias masked, never whole.
    expect(text).not.toContain(customer.alias);
    expect(text).toContain(`${customer.alias.slice(0, 2)}***`);

    const json = await call(base, 'GET', `/mandates/${id}/confirm`, { headers: { accept: 'application/json' } });
    expect(responseSchemaOf('GET', '/mandates/{mandate_id}/confirm').safeParse(json.body).error).toBeUndefined();
    expect(json.body).toMatchObject({
      mandate_id: id,
      status: 'PENDING_CONFIRMATION',
      merchant_name: 'Films & "Shows"',
      amount: 4_990,
      interval: 'monthly',
      otp_attempts_left: 3,
    });
    expect(json.body.customer_alias).toBe(`${customer.alias.slice(0, 2)}***`);

    expect((await fetch(`${base}/mandates/mdt_unknown123/confirm`, { headers: { accept: 'text/html' } })).status).toBe(
      404,
    );
    expect((await fetch(`${base}/mandates/<script>/confirm`, { headers: { accept: 'text/html' } })).status).toBe(404);
    expectError(
      await call(base, 'GET', '/mandates/mdt_unknown123/confirm', { headers: { accept: 'application/json' } }),
      404,
      'MANDATE_NOT_FOUND',
    );
  });

  it('in Chromium at phone width: a wrong OTP is explained on the page, the right one makes the mandate ACTIVE', async () => {
    const { mandate_id: id, confirm_url: confirmUrl } = await create();
    expect(new URL(confirmUrl).pathname).toBe(`/mandates/${id}/confirm`);
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      userAgent: 'MandateTest/1.0 (Chromium)',
    });
    const page = await context.newPage();
    await page.goto(`${base}/mandates/${id}/confirm`);
    expect(await page.textContent('#merchant-name')).toBe('Films & "Shows"');
    expect(await page.textContent('#amount')).toContain('4.990 LYD');
    expect(await page.textContent('#interval')).toBe('every month');
    expect(await page.textContent('#start-date')).toBe('2026-12-31');
    expect(await page.textContent('#customer')).toBe(`${customer.alias.slice(0, 2)}***`);
    // Nothing wider than the phone's screen.
    expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(360);

    await page.fill('#otp', '000000');
    await Promise.all([page.waitForURL(/error=OTP_INVALID/), page.click('#confirm-button')]);
    expect(await page.textContent('#otp-error')).toContain('not accepted');
    expect(await page.textContent('#attempts')).toBe('2 attempts left');

    await page.fill('#otp', customer.otp);
    await Promise.all([page.waitForURL(`${base}/mandates/${id}/confirm`), page.click('#confirm-button')]);
    expect(await page.getAttribute('#closed', 'data-status')).toBe('ACTIVE');
    expect(await page.textContent('#closed-text')).toContain('Mandate active');
    expect(await record(id)).toMatchObject({
      status: 'ACTIVE',
      acceptance: { user_agent: 'MandateTest/1.0 (Chromium)' },
    });
    await context.close();
  });

  it('works without script (a plain form post answered 303)', async () => {
    const { mandate_id: id } = await create();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${base}/mandates/${id}/confirm`);
    await page.fill('#otp', customer.otp);
    await Promise.all([page.waitForURL(`${base}/mandates/${id}/confirm`), page.click('#confirm-button')]);
    expect(await page.getAttribute('#closed', 'data-status')).toBe('ACTIVE');
    await context.close();
  });

  it('in Chromium: the third wrong OTP shows the FAILED state, with no form left to submit', async () => {
    const { mandate_id: id } = await create({ description: 'Three strikes' });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${base}/mandates/${id}/confirm`);
    for (const left of ['2 attempts left', '1 attempt left']) {
      await page.fill('#otp', '000000');
      await Promise.all([page.waitForURL(/error=OTP_INVALID/), page.click('#confirm-button')]);
      expect(await page.textContent('#attempts')).toBe(left);
    }
    await page.fill('#otp', '000000');
    await Promise.all([page.waitForNavigation(), page.click('#confirm-button')]);
    expect(await page.getAttribute('#closed', 'data-status')).toBe('FAILED');
    expect(await page.textContent('#closed-text')).toContain('not confirmed');
    expect(await page.locator('#mandate-form').count()).toBe(0);
    expect(await record(id)).toMatchObject({ status: 'FAILED' });
    await context.close();
  });
});
