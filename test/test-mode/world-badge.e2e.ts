import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ALL_OB_SCOPES, openBankingSeeds, type OpenBankingSeeds } from '../support/open-banking';
import { bearer, FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 375, height: 812 };
/** Set to a folder to keep screenshots of the pages for a person to look at (as test/dashboard does). */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;
type World = 'test' | 'live';

/**
 * Test and live cannot be mistaken (issue 47): the dashboard shows the merchant's world as a TEST
 * or LIVE badge of its own, apart from the connection's status; the customer pages of a test
 * object (checkout, consent, SCA, mandate confirmation) carry a TEST badge and those of a live one
 * none, at a desktop's width and a phone's (375 px), where the test banner keeps to two lines.
 */
describe('test and live in a browser', () => {
  let t: TestPlatform;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let payee: Customer;
  let customer: Customer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const merchants = {} as Record<World, { apiKey: string }>;
  const tpps = {} as Record<World, { tppAccessToken: string }>;
  /** The customer pages of one object of each kind, per world. */
  const pages = {} as Record<World, Record<'checkout' | 'consent' | 'sca' | 'mandate', string>>;

  const open = async (viewport: { width: number; height: number }): Promise<Page> => {
    context = await browser.newContext({ viewport });
    return context.newPage();
  };
  /** Nothing wider than the screen (no sideways scrolling on a phone). */
  const fitsTheScreen = async (page: Page) => {
    const widths = await page
      .locator('html')
      .evaluate((html) => ({ content: html.scrollWidth, screen: html.clientWidth }));
    expect(widths.content).toBeLessThanOrEqual(widths.screen);
  };
  const shoot = async (page: Page, name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  /** Lines of text an element takes: its content height over its line height. */
  const linesOf = (page: Page, selector: string) =>
    page.locator(selector).evaluate((element) => {
      const style = getComputedStyle(element);
      const content = element.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
      return Math.round(content / parseFloat(style.lineHeight));
    });

  /** Everything a world's objects need: a merchant and a TPP of that world, a session, a mandate, a consent and an order awaiting SCA. */
  const seedWorld = async (world: World) => {
    merchants[world] = await t.seed.createMerchant({
      name: `${world} shop`,
      mode: world,
      settlement_iban: payee.iban,
    });
    const headers = bearer(merchants[world].apiKey);
    const session = await t.rest('POST', '/payments/sessions', {
      headers,
      body: { amount: 12_500, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: world },
    });
    expect({ status: session.status, body: session.body }).toMatchObject({
      status: 201,
      body: { livemode: world === 'live' },
    });
    const mandate = await t.rest('POST', '/recurring/mandates', {
      headers,
      body: {
        customer_alias: customer.alias,
        amount: 3_000,
        currency: 'LYD',
        interval: 'monthly',
        description: 'Monthly magazine',
        start_date: new Date().toISOString().slice(0, 10),
      },
    });
    expect({ status: mandate.status, body: mandate.body }).toMatchObject({ status: 201 });

    tpps[world] = await t.seed.registerTpp({ name: `${world} budgeting`, mode: world });
    const consentId = await ob.createConsent(tpps[world].tppAccessToken, bank.handle);
    const grant = await ob.grant(
      tpps[world].tppAccessToken,
      bank.handle,
      [{ iban: customer.iban, bankHandle: bank.handle }],
      ALL_OB_SCOPES,
    );
    // Above the bank's SCA exemption limit: it waits for the customer on the SCA page.
    const order = await t.rest('POST', '/ob/payment-orders', {
      headers: grant.headers(),
      body: {
        source_account_id: grant.accountIds[0],
        destination: { type: 'iban', value: payee.iban },
        amount: 150_000,
        currency: 'LYD',
        description: 'New sofa',
      },
    });
    expect({ status: order.status, body: order.body }).toMatchObject({
      status: 202,
      body: { status: 'PENDING_SCA', livemode: world === 'live' },
    });
    pages[world] = {
      checkout: `/pay/${session.body.session_id}`,
      consent: `/ob/auth/${consentId}`,
      sca: `/ob/sca/${order.body.payment_order_id}`,
      mandate: `/mandates/${mandate.body.mandate_id}/confirm`,
    };
  };

  const signIn = async (page: Page, world: World) => {
    await page.goto(`${t.platform.restUrl}/dashboard`);
    await page.fill('#api-key', merchants[world].apiKey);
    await page.click('#sign-in-button');
    await page.waitForSelector('#merchant-name');
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    payee = await bank.customer({ balance: 0 });
    customer = await bank.customer({ balance: 1_000_000 });
    await seedWorld('test');
    await seedWorld('live');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await bank?.sandbox.stop();
    await t?.stop();
  });

  describe.each([
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const)('at %s width', (width, viewport) => {
    it.each(['checkout', 'consent', 'sca', 'mandate'] as const)(
      "the %s page of a test object carries a TEST badge, a live object's none",
      async (kind) => {
        const page = await open(viewport);
        const test = await page.goto(`${t.platform.restUrl}${pages.test[kind]}`);
        expect(test?.status()).toBe(200);
        expect(await page.locator('#test-badge').isVisible()).toBe(true);
        expect(await page.textContent('#test-badge .badge')).toBe('TEST');
        expect(await page.textContent('#test-badge')).toMatch(/^TEST (Test payment|Test request|Test mandate)/);
        await fitsTheScreen(page);
        await shoot(page, `${kind}-test-${width}`);

        const live = await page.goto(`${t.platform.restUrl}${pages.live[kind]}`);
        expect(live?.status()).toBe(200);
        expect(await page.locator('#test-badge').count()).toBe(0);
        expect(await page.locator('main').textContent()).not.toContain('TEST');
        await fitsTheScreen(page);
      },
    );

    it("the dashboard shows a test merchant's world as a TEST badge apart from the connection, a live merchant's as LIVE", async () => {
      const page = await open(viewport);
      await signIn(page, 'test');
      expect(await page.textContent('#world-badge')).toBe('TEST');
      expect(await page.getAttribute('#world-badge', 'data-world')).toBe('test');
      expect(await page.locator('#world-badge').isVisible()).toBe(true);
      // The connection's status says it is a connection, never "Live".
      expect(await page.textContent('#connection-state')).toMatch(/^(Connected|Up to date|Reconnecting)$/);
      expect(await page.locator('#test-banner').isVisible()).toBe(true);
      await fitsTheScreen(page);
      await shoot(page, `dashboard-test-${width}`);

      await context!.close();
      const livePage = await open(viewport);
      await signIn(livePage, 'live');
      expect(await livePage.textContent('#world-badge')).toBe('LIVE');
      expect(await livePage.getAttribute('#world-badge', 'data-world')).toBe('live');
      expect(await livePage.locator('#test-banner').count()).toBe(0);
      expect(await livePage.locator('header').textContent()).not.toContain('TEST');
      await fitsTheScreen(livePage);
      await shoot(livePage, `dashboard-live-${width}`);
    });
  });

  it('on a desktop the test banner says it all, with no "more"', async () => {
    const page = await open(DESKTOP);
    await signIn(page, 'test');
    expect(await page.locator('#test-payers').isVisible()).toBe(true);
    expect(await page.locator('#test-banner-more').isVisible()).toBe(false);
    expect(await page.textContent('#test-banner')).toContain('test bank');
  });

  it('on a phone (375 px) the test banner keeps to two lines, the rest behind "more"', async () => {
    const page = await open(PHONE);
    await signIn(page, 'test');
    expect(await linesOf(page, '#test-banner')).toBeLessThanOrEqual(2);
    expect(await page.locator('#test-payers').isVisible()).toBe(false);
    expect(await page.textContent('#test-banner')).toContain('Test mode');

    await page.click('#test-banner-more');
    expect(await page.getAttribute('#test-banner-more', 'aria-expanded')).toBe('true');
    expect(await page.locator('#test-payers').isVisible()).toBe(true);
    expect(await page.textContent('#test-payers')).toContain('success@<bank>');
    await fitsTheScreen(page);
    await shoot(page, 'dashboard-test-phone-more');

    await page.click('#test-banner-more');
    expect(await page.locator('#test-payers').isVisible()).toBe(false);
    expect(await linesOf(page, '#test-banner')).toBeLessThanOrEqual(2);
  });
});
