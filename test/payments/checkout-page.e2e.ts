import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { call } from '@gateway/rest-compat/testing';
import { bearer, FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The checkout page in a real browser (Debian's chromium driven by playwright-core): a payer pays through it. */
describe('checkout page in a browser', () => {
  let t: TestPlatform;
  let browser: Browser;
  let page: Page;
  let shop: Server;
  let shopUrl: string;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let merchant: { merchantId: string; apiKey: string };
  let payee: Customer;

  const createSession = async (amount: number, description = 'Two coffees', reference?: string) => {
    const answer = await call(t.platform.restUrl, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: {
        amount,
        currency: 'LYD',
        destination: { type: 'alias', value: payee.alias },
        description,
        redirect_url: `${shopUrl}/thanks`,
        ...(reference ? { reference } : {}),
      },
    });
    // checkout_url carries PUBLIC_BASE_URL; the browser opens the same path on this test platform.
    return { id: answer.body.session_id as string, path: new URL(answer.body.checkout_url).pathname };
  };
  const returnedTo = async () => {
    await page.waitForURL((url) => url.href.startsWith(`${shopUrl}/thanks`), { timeout: 30_000 });
    return new URL(page.url()).searchParams;
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    merchant = await t.seed.createMerchant({ name: 'Corner Café' });
    payee = await alpha.customer({ balance: 0 });
    shop = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Thank you</h1>'),
    );
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.close(resolve));
    await alpha?.sandbox.stop();
    await beta?.sandbox.stop();
    await t?.stop();
  });

  it('pays a same-bank session by alias: each refusal is explained next to its field, the right OTP completes with a receipt and returns to the merchant', async () => {
    const payer = await alpha.customer({ balance: 100_000, otp: '246810' });
    const { id, path } = await createSession(12_345, 'Two coffees', 'order-77');
    const response = await page.goto(`${t.platform.restUrl}${path}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response?.headers()['cache-control']).toBe('no-store');
    expect(await page.title()).toBe('Pay Corner Café');
    expect(await page.textContent('#amount')).toBe('12.345 LYD');
    expect(await page.textContent('main')).toContain('Two coffees');

    // An alias nobody holds: said under the alias field, nowhere else.
    await page.fill('#payer-value', `nobody${Date.now()}`);
    await page.fill('#otp', '111111');
    await page.click('#pay-button');
    await page.waitForSelector('#payer-error:not([hidden])');
    expect(await page.textContent('#payer-error')).toBe('No account is registered under this alias or IBAN.');
    expect(await page.getAttribute('#payer-value', 'aria-invalid')).toBe('true');
    expect(await page.isVisible('#message')).toBe(false);

    await page.fill('#payer-value', payer.alias);
    await page.fill('#otp', '111111');
    await page.click('#pay-button');
    await page.waitForSelector('#otp-error:not([hidden])');
    expect(await page.textContent('#otp-error')).toBe('The one-time password was not accepted.');
    expect(await page.isVisible('#payer-error')).toBe(false);
    await page.locator('#attempts', { hasText: '2 attempts left' }).waitFor();
    // The attempts left are said once, under the OTP field (the error itself does not repeat them).
    expect((await page.innerText('main')).match(/attempts? left/g)).toEqual(['attempts left']);
    // The OTP's messages follow the OTP field and come before the button, not below it.
    const below = (upper: string, lower: string) =>
      page.evaluate(
        `document.querySelector('${upper}').compareDocumentPosition(document.querySelector('${lower}')) & Node.DOCUMENT_POSITION_FOLLOWING`,
      );
    expect(await below('#otp', '#otp-error')).toBeTruthy();
    expect(await below('#otp-error', '#pay-button')).toBeTruthy();
    // A refused OTP leaves the session PENDING: no "processing" status next to the error.
    expect(await page.isVisible('#status')).toBe(false);
    await page.screenshot({ path: join(tmpdir(), 'checkout-otp-refused.png') });

    await page.fill('#otp', '246810');
    await page.click('#pay-button');
    await page.waitForSelector('#status[data-status="COMPLETED"]');
    expect(await page.textContent('#status')).toContain('Payment completed');
    // The receipt: amount from minor units with its currency, payee, the merchant's reference, the payment id and when.
    await page.waitForSelector('#receipt:not([hidden])');
    expect(await page.textContent('#receipt-amount')).toBe('12.345 LYD');
    expect(await page.textContent('#receipt-payee')).toBe('Corner Café');
    expect(await page.textContent('#receipt-reference')).toBe('order-77');
    expect(await page.textContent('#receipt-payment')).toBe(id);
    const time = (await page.textContent('#receipt-time'))!;
    expect(time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    expect(Math.abs(Date.parse(time.replace(' UTC', 'Z').replace(' ', 'T')) - Date.now())).toBeLessThan(60_000);
    await page.screenshot({ path: join(tmpdir(), 'checkout-receipt.png') });
    const query = await returnedTo();
    expect(Object.fromEntries(query)).toEqual({ session_id: id, status: 'completed' });
    expect(await alpha.balance(payer.iban)).toBe(100_000 - 12_345);
  });

  it('pays a cross-bank session by IBAN, waiting for the creditor bank’s confirmation', async () => {
    const payer = await beta.customer({ balance: 80_000, otp: '135790' });
    const { id, path } = await createSession(20_000, 'Groceries');
    await page.goto(`${t.platform.restUrl}${path}`);
    await page.check('#payer-type-iban');
    expect(await page.textContent('#payer-label')).toBe('IBAN');
    await page.fill('#payer-value', payer.iban.replace(/(.{4})/g, '$1 '));
    await page.fill('#otp', '135790');
    await page.click('#pay-button');
    const query = await returnedTo();
    expect(Object.fromEntries(query)).toEqual({ session_id: id, status: 'completed' });
    const session = await call(t.platform.restUrl, 'GET', `/payments/sessions/${id}`, {
      headers: bearer(merchant.apiKey),
    });
    expect(session.body).toMatchObject({ status: 'COMPLETED', settlement_type: 'rail', debtor_bank: beta.handle });
    expect(await beta.balance(payer.iban)).toBe(60_000);
  });

  it('explains a refusal that ends the payment and returns with status=failed', async () => {
    const payer = await alpha.customer({ balance: 10, otp: '999111' });
    const { id, path } = await createSession(5_000);
    await page.goto(`${t.platform.restUrl}${path}`);
    await page.fill('#payer-value', payer.alias);
    await page.fill('#otp', '999111');
    await page.click('#pay-button');
    await page.waitForSelector('#status[data-status="FAILED"]');
    expect(await page.textContent('#status')).toBe(
      'The payment did not go through: your balance is too low for this payment. No money was taken.',
    );
    expect(await page.isVisible('#receipt')).toBe(false);
    await page.screenshot({ path: join(tmpdir(), 'checkout-failed.png') });
    const query = await returnedTo();
    expect(Object.fromEntries(query)).toEqual({ session_id: id, status: 'failed' });
  });

  it('shows an expired session as expired, and an unknown one as not found', async () => {
    const { id, path } = await createSession(1_000);
    await t.platform.db
      .knex('payments.payment_sessions')
      .where({ id })
      .update({ expires_at: new Date(Date.now() - 1_000) });
    await page.goto(`${t.platform.restUrl}${path}`);
    const query = await returnedTo();
    expect(Object.fromEntries(query)).toEqual({ session_id: id, status: 'expired' });

    const missing = await page.goto(`${t.platform.restUrl}/pay/ops_doesnotexistatall0000`);
    expect(missing?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Payment not found');
  });

  it('escapes what the merchant wrote', async () => {
    const { path } = await createSession(1_500, '<img src=x onerror="document.title=\'pwned\'">');
    await page.goto(`${t.platform.restUrl}${path}`);
    expect(await page.textContent('.description')).toBe('<img src=x onerror="document.title=\'pwned\'">');
    expect(await page.title()).toBe('Pay Corner Café');
  });
});
