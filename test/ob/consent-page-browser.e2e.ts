import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createConsent, enableOpenBanking } from '../support/consent-flow';
import { startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ISSUER = 'https://gw.example.ly';

/** The consent page in a real browser (Debian's chromium driven by playwright-core): a customer approves or rejects a TPP's request. */
describe('consent page in a browser', () => {
  let t: TestPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tppServer: Server;
  let callback: string;
  let bank: PaymentBank;
  let tpp: { tppId: string; tppAccessToken: string };

  /** A new consent, and the path of its consent_url on this test platform (consent_url carries PUBLIC_BASE_URL). */
  const newConsent = async (scopes = ['accounts:read', 'balances:read', 'transactions:read']) => {
    const consent = await createConsent(t, tpp.tppAccessToken, {
      bank_handle: bank.handle,
      redirect_uri: callback,
      scopes,
      state: 'state-ü-1/+=?',
    });
    return { ...consent, url: `${t.platform.restUrl}${new URL(consent.consentUrl).pathname}` };
  };
  const landedAtTpp = async () => {
    await page.waitForURL((url) => url.href.startsWith(callback), { timeout: 30_000 });
    return new URL(page.url()).searchParams;
  };

  beforeAll(async () => {
    t = await startTestPlatform({ env: { PUBLIC_BASE_URL: ISSUER } });
    bank = await startPaymentBank(t);
    await enableOpenBanking(t, bank);
    tppServer = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Back at the app</h1>'),
    );
    await new Promise<void>((resolve) => tppServer.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(tppServer.address() as AddressInfo).port}/callback`;
    tpp = await t.seed.registerTpp({ name: 'Budget App', redirect_uris: [callback] });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterEach(async () => {
    await context?.close();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => tppServer?.close(resolve));
    await bank?.sandbox.stop();
    await t?.stop();
  });

  describe('with script', () => {
    beforeEach(async () => {
      context = await browser.newContext({ viewport: { width: 360, height: 740 } });
      page = await context.newPage();
    });

    it('shows the request, explains a wrong OTP next to its field, then approves and lands on the redirect URI with code, state and iss', async () => {
      const customer = await bank.customer();
      const consent = await newConsent();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      // Script errors and CSP refusals (a 401 answer or a missing favicon is logged too, and is no fault).
      page.on(
        'console',
        (message) => message.type() === 'error' && message.text().startsWith('Refused') && errors.push(message.text()),
      );
      await page.goto(consent.url);

      expect(await page.textContent('#tpp-name')).toBe('Budget App');
      expect(await page.textContent('#bank-name')).toBe(`Pay Bank ${bank.institutionCode}`);
      expect(await page.locator('#scopes li').allTextContents()).toEqual([
        'See your accounts and their details (account name, IBAN, currency)',
        'See the balances of your accounts',
        'See the transactions on your accounts',
      ]);
      // Phone width: nothing wider than the screen.
      const widths = await page
        .locator('html')
        .evaluate((html) => ({ content: html.scrollWidth, screen: html.clientWidth }));
      expect(widths.content).toBeLessThanOrEqual(widths.screen);

      await page.fill('#customer-value', customer.alias);
      await page.fill('#otp', '000000');
      await page.click('#approve-button');
      await page.waitForSelector('#otp-error:not(:empty)');
      expect(await page.textContent('#otp-error')).toBe('The one-time password was not accepted. 2 attempts left.');
      expect(await page.textContent('#attempts')).toBe('2 attempts left');

      await page.fill('#otp', customer.otp);
      await page.click('#approve-button');
      const query = await landedAtTpp();
      expect(query.get('code')).toMatch(/^oac_[0-9A-Za-z]{32}$/);
      expect(Object.fromEntries(query)).toMatchObject({
        consent_id: consent.consentId,
        state: consent.state,
        iss: ISSUER,
      });
      expect(errors).toEqual([]);
      const row = await t.platform.db.knex('open_banking.consents').where({ id: consent.consentId }).first();
      expect(row.status).toBe('AUTHORISED');
    });

    it('shows an account at another bank as refused next to the customer field', async () => {
      const other = await startPaymentBank(t);
      try {
        const stranger = await other.customer();
        const consent = await newConsent();
        await page.goto(consent.url);
        await page.fill('#customer-value', stranger.alias);
        await page.fill('#otp', stranger.otp);
        await page.click('#approve-button');
        await page.waitForSelector('#customer-error:not(:empty)');
        expect(await page.textContent('#customer-error')).toBe(
          `No account at Pay Bank ${bank.institutionCode} is registered under this alias or IBAN.`,
        );
      } finally {
        await other.sandbox.stop();
      }
    });

    it('a funds-confirmation consent says in plain words what it allows, refuses a customer who does not hold the account, then its holder approves', async () => {
      const holder = await bank.customer();
      const stranger = await bank.customer();
      const verifier = randomBytes(32).toString('base64url');
      const created = await t.rest('POST', '/ob/funds-confirmation-consents', {
        headers: { authorization: `Bearer ${tpp.tppAccessToken}` },
        body: {
          bank_handle: bank.handle,
          account: { type: 'iban', value: holder.iban },
          expiry: new Date(Date.now() + 7 * 86_400_000).toISOString(),
          redirect_uri: callback,
          state: 'cbpii',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
        },
      });
      expect(created.status).toBe(201);
      await page.goto(`${t.platform.restUrl}${new URL(created.body.consent_url as string).pathname}`);
      expect(await page.locator('#scopes li').allTextContents()).toEqual([
        'Answer yes or no when asked whether your account holds an amount; never your balance',
      ]);

      await page.fill('#customer-value', stranger.alias);
      await page.fill('#otp', stranger.otp);
      await page.click('#approve-button');
      await page.waitForSelector('#customer-error:not(:empty)');
      expect(await page.textContent('#customer-error')).toBe(
        `The account this request is about is not one of your accounts at Pay Bank ${bank.institutionCode}. Nothing was shared.`,
      );

      await page.fill('#customer-value', holder.alias);
      await page.fill('#otp', holder.otp);
      await page.click('#approve-button');
      expect((await landedAtTpp()).get('state')).toBe('cbpii');
    });

    it('rejects and lands on the redirect URI with error=access_denied and the state', async () => {
      const consent = await newConsent();
      await page.goto(consent.url);
      await page.click('#reject-button');
      const query = await landedAtTpp();
      expect(Object.fromEntries(query)).toEqual({
        error: 'access_denied',
        consent_id: consent.consentId,
        state: consent.state,
        iss: ISSUER,
      });
    });

    it('a page whose token ran out opens again with a fresh one and says so; then the rejection goes through', async () => {
      const consent = await newConsent();
      await page.goto(consent.url);
      // As after 30 minutes: the token the page was opened with is no longer accepted.
      await page
        .locator('#page-token')
        .evaluate((input) => void ((input as unknown as { value: string }).value = `cpt_1_${'0'.repeat(64)}`));
      await page.click('#reject-button');
      await page.waitForURL(/\?error=UNAUTHORIZED$/);
      expect(await page.textContent('#message')).toBe('This page was open too long. Please choose again.');
      await page.click('#reject-button');
      const query = await landedAtTpp();
      expect(query.get('error')).toBe('access_denied');
    });
  });

  describe('without script', () => {
    beforeEach(async () => {
      context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
      page = await context.newPage();
    });

    it('approves through the plain form (303 to the redirect URI, allowed by the CSP form-action)', async () => {
      const customer = await bank.customer();
      const consent = await newConsent(['accounts:read']);
      await page.goto(consent.url);
      await page.check('#customer-type-iban');
      await page.fill('#customer-value', customer.iban);
      await page.fill('#otp', '000000');
      await page.click('#approve-button');
      // Refused: back on the page, the refusal next to the OTP field.
      await page.waitForURL(/\?error=OTP_INVALID$/);
      expect(await page.textContent('#otp-error')).toBe('The one-time password was not accepted. 2 attempts left.');

      await page.check('#customer-type-iban');
      await page.fill('#customer-value', customer.iban);
      await page.fill('#otp', customer.otp);
      await page.click('#approve-button');
      const query = await landedAtTpp();
      expect(query.get('code')).toMatch(/^oac_/);
      expect(Object.fromEntries(query)).toMatchObject({
        consent_id: consent.consentId,
        state: consent.state,
        iss: ISSUER,
      });
    });

    it('rejects through the plain form', async () => {
      const consent = await newConsent();
      await page.goto(consent.url);
      await page.click('#reject-button');
      const query = await landedAtTpp();
      expect(query.get('error')).toBe('access_denied');
      expect(query.get('state')).toBe(consent.state);
    });
  });
});
