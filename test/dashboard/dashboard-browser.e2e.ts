import { mkdirSync } from 'node:fs';
import { TEST_OTP } from '@gateway/bank-sandbox';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { bearer, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { serviceSignature, startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Set to a folder to keep screenshots of the pages (desktop and phone width) for a person to look at. */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;

/**
 * The merchant dashboard in a real browser (Debian's chromium, playwright-core) against the whole
 * platform: it signs in with a merchant key, exchanged for an HttpOnly session cookie (no key in
 * any storage a script reads), and uses the public GraphQL API only, through rest-compat's
 * /graphql (HTTP and graphql-ws).
 */
describe('merchant dashboard in a browser', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const receivers: TestWebhookReceiver[] = [];

  const receiver = async () => {
    const started = await startTestReceiver();
    receivers.push(started);
    return started;
  };
  const createSession = async (apiKey: string, payee: Customer, reference: string) => {
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: {
        amount: 12_500,
        currency: 'LYD',
        destination: { type: 'alias', value: payee.alias },
        reference,
        description: 'Two concert tickets',
      },
    });
    expect(created.status).toBe(201);
    return created.body.session_id as string;
  };
  const pay = async (sessionId: string, payer: Customer) => {
    const paid = await t.rest('POST', `/pay/${sessionId}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    // The whole answer on a failure, so a refusal names its code.
    expect({ status: paid.status, body: paid.body }).toMatchObject({ status: 200 });
  };
  const openPage = async (width = 1280, height = 860) => {
    context = await browser.newContext({ viewport: { width, height } });
    page = await context.newPage();
    errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Script errors and CSP refusals (a refused API call is logged by Chromium too, and is no fault).
    page.on(
      'console',
      (message) => message.type() === 'error' && message.text().startsWith('Refused') && errors.push(message.text()),
    );
  };
  /** What scripts of the page can read: both storages and document.cookie. */
  const browserStorage = () =>
    page.evaluate(() => ({
      session: { ...(globalThis as any).sessionStorage },
      local: { ...(globalThis as any).localStorage },
      cookie: (globalThis as any).document.cookie,
    }));
  const sessionCookie = async () => {
    const cookies = await context.cookies();
    expect(cookies.map((cookie) => cookie.name)).toEqual(['gateway_dashboard']);
    return cookies[0]!;
  };
  const signIn = async (apiKey: string) => {
    const answer = await page.goto(`${t.platform.restUrl}/dashboard`);
    expect(answer?.status()).toBe(200);
    await page.fill('#api-key', apiKey);
    await page.click('#sign-in-button');
    await page.waitForSelector('#merchant-name');
  };
  const shoot = async (name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  const fitsTheScreen = async () => {
    const widths = await page
      .locator('html')
      .evaluate((html) => ({ content: html.scrollWidth, screen: html.clientWidth }));
    expect(widths.content).toBeLessThanOrEqual(widths.screen);
  };

  beforeAll(async () => {
    // One automatic retry, 0.2 s after the first attempt, then FAILED: a failed delivery stays failed until retried by hand.
    t = await startTestPlatform({ env: { WEBHOOK_RETRY_SCHEDULE: '0.2' } });
    bank = await startPaymentBank(t);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterEach(async () => {
    expect(errors).toEqual([]);
    await context?.close();
  });
  afterAll(async () => {
    await browser?.close();
    for (const r of receivers) await r.stop();
    await bank?.sandbox.stop();
    await t?.stop();
  });

  it('signs in with a test key (banner), shows a new payment appear and move to COMPLETED live without a reload, with its timeline', async () => {
    // A test merchant: its payment moves money at the built-in test bank, where a customer's OTP is 123456.
    const merchant = await t.seed.createMerchant({ name: 'Tripoli Tickets', mode: 'test' });
    const [payee, payer] = [await bank.customer({ balance: 0 }), await bank.customer({ otp: TEST_OTP })];
    await openPage();
    const frames: string[] = [];
    page.on('websocket', (socket) => socket.on('framereceived', (frame) => frames.push(String(frame.payload))));
    const answer = await page.goto(`${t.platform.restUrl}/dashboard`);
    // The customer pages' rules: a nonce CSP (no inline code without it), no framing, no caching.
    expect(answer?.headers()['content-security-policy']).toMatch(
      /script-src 'nonce-[A-Za-z0-9+/=]+'; style-src 'nonce-/,
    );
    expect(answer?.headers()['cache-control']).toBe('no-store');
    expect(answer?.headers()['x-frame-options']).toBe('DENY');
    // Assets are named by their content hash; any other name is not found.
    expect((await fetch(`${t.platform.restUrl}/dashboard/assets/app-0000000000000000.js`)).status).toBe(404);
    await shoot('sign-in-desktop');
    await page.fill('#api-key', merchant.apiKey);
    await page.click('#sign-in-button');
    await page.waitForSelector('#merchant-name');
    expect(await page.textContent('#merchant-name')).toBe('Tripoli Tickets');
    expect(await page.textContent('#test-banner')).toContain('Test mode');
    expect(await page.textContent('#world-badge')).toBe('TEST');
    expect(await page.textContent('#test-banner')).toContain('test bank');
    expect(await page.textContent('#test-payers')).toContain('credit-refused@<bank>');
    // The home view opens first; the sessions list is one click away.
    await page.waitForSelector('#home');
    await page.click('#nav-sessions');
    // The key was exchanged for a session cookie: not in the address, not in any storage, and the
    // cookie is HttpOnly (no script reads it) and SameSite=Strict.
    expect(page.url()).not.toContain(merchant.apiKey);
    expect(await browserStorage()).toEqual({ session: {}, local: {}, cookie: '' });
    const cookie = await sessionCookie();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    expect(cookie.value).toMatch(/^mds_/);
    expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(7.9 * 3600_000);
    expect(cookie.expires * 1000 - Date.now()).toBeLessThanOrEqual(8 * 3600_000);

    const sessionId = await createSession(merchant.apiKey, payee, 'order-7781');
    await page.waitForSelector(`#sessions [data-session-id="${sessionId}"] .row-status[data-status="PENDING"]`, {
      timeout: 15_000,
    });
    expect(await page.locator(`#sessions [data-session-id="${sessionId}"]`).textContent()).toContain('12.500 LYD');
    await page.evaluate(() => ((globalThis as any).notReloaded = true));

    await pay(sessionId, payer);
    await page.waitForSelector(`#sessions [data-session-id="${sessionId}"] .row-status[data-status="COMPLETED"]`, {
      timeout: 15_000,
    });
    expect(await page.evaluate(() => (globalThis as any).notReloaded)).toBe(true);
    // It came over graphql-ws (paymentSessionUpdated), not only from the list being asked again.
    expect(
      frames.some(
        (frame) => frame.includes('paymentSessionUpdated') && frame.includes(sessionId) && frame.includes('COMPLETED'),
      ),
    ).toBe(true);
    // Nothing left to follow: the socket is closed on purpose, not broken.
    await page.waitForSelector('#connection-state[data-state="idle"]');
    await shoot('sessions-desktop');

    await page.click(`#sessions [data-session-id="${sessionId}"] a`);
    await page.waitForSelector('#session-status[data-status="COMPLETED"]');
    // Every move, as the API recorded it (statusHistory), not only the first and the last.
    expect(await page.locator('#timeline li .timeline-label').allTextContents()).toEqual([
      'PENDING',
      'PROCESSING',
      'COMPLETED',
    ]);
    expect(await page.textContent('#session-detail')).toContain('order-7781');
    await shoot('session-detail-desktop');

    // A reload keeps the tab signed in (the cookie, checked again by the API); signing out ends the
    // session at the gateway: the same cookie, sent again, no longer signs anyone in.
    await page.reload();
    await page.waitForSelector('#session-status[data-status="COMPLETED"]');
    expect(await browserStorage()).toEqual({ session: {}, local: {}, cookie: '' });
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in-form');
    expect(await context.cookies()).toEqual([]);
    const replayed = await fetch(`${t.platform.restUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: `gateway_dashboard=${cookie.value}`,
        origin: t.platform.restUrl,
      },
      body: JSON.stringify({ query: '{ currentMerchant { id } }' }),
    }).then((response) => response.json() as Promise<{ errors: Array<{ extensions: { code: string } }> }>);
    expect(replayed.errors[0]!.extensions.code).toBe('UNAUTHORIZED');
    await page.reload();
    await page.waitForSelector('#sign-in-form');
  });

  it('a failed webhook delivery is retried from the dashboard and shows as delivered, signed with the secret rotated there (shown once)', async () => {
    const endpoint = await receiver();
    let healthy = false;
    endpoint.answer(() => (healthy ? 200 : 500));
    const merchant = await t.seed.createMerchant({ name: 'Sabratha Books', webhook_url: endpoint.url });
    const sessionId = await createSession(merchant.apiKey, await bank.customer({ balance: 0 }), 'book-42');
    await pay(sessionId, await bank.customer());
    await openPage();
    await signIn(merchant.apiKey);

    await page.goto(`${t.platform.restUrl}/dashboard#/sessions/${sessionId}`);
    await page.waitForSelector('#session-status[data-status="COMPLETED"]');
    // Both attempts answered 500 and the schedule is spent: FAILED, with a retry button.
    const completed = page.locator('#deliveries .delivery', { hasText: 'payment.completed' });
    await completed.and(page.locator('[data-status="FAILED"]')).waitFor({ timeout: 20_000 });
    expect(await completed.locator('.attempts li').allTextContents()).toEqual([
      expect.stringContaining('HTTP 500'),
      expect.stringContaining('HTTP 500'),
    ]);
    await shoot('deliveries-failed-desktop');

    // The secret is rotated from the dashboard: shown once, then gone from the page.
    await page.click('#nav-webhooks');
    await page.click('#rotate-secret');
    await page.click('#rotate-confirm');
    const secret = (await page.textContent('#new-webhook-secret'))!;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(merchant.webhookSecret);
    await shoot('webhooks-rotated-desktop');
    await page.click('#hide-secret');
    expect(await page.locator('#new-webhook-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    healthy = true;
    await page.goto(`${t.platform.restUrl}/dashboard#/sessions/${sessionId}`);
    await completed.and(page.locator('[data-status="FAILED"]')).waitFor();
    await completed.locator('button.retry').click();
    await completed.and(page.locator('[data-status="DELIVERED"]')).waitFor({ timeout: 15_000 });
    expect(await completed.locator('.attempts li').last().textContent()).toContain('HTTP 200');
    expect(await completed.locator('button.retry').count()).toBe(0);
    const sent = endpoint.received.filter(
      (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === sessionId,
    );
    expect(sent).toHaveLength(3);
    const redelivered = sent[2]!;
    expect(redelivered.headers['x-service-signature']).toBe(serviceSignature(secret, redelivered.body));
    // Only the one retried by hand went out again: the others stay FAILED (no automatic retry is left).
    expect(await page.locator('#deliveries .delivery[data-status="FAILED"]').count()).toBeGreaterThan(0);
    await shoot('deliveries-retried-desktop');
  });

  it("is linked from the start page, and refuses a wrong key with the API's own error, keeping nothing", async () => {
    await openPage();
    await page.goto(`${t.platform.restUrl}/`);
    await page.click('#links a[href="/dashboard"]');
    await page.waitForSelector('#sign-in-form');
    await page.fill('#api-key', 'mk_test_thisKeyDoesNotExist');
    await page.click('#sign-in-button');
    await page.waitForSelector('#sign-in-error');
    const direct = await fetch(`${t.platform.restUrl}/dashboard/session`, {
      method: 'POST',
      headers: { origin: t.platform.restUrl, ...bearer('mk_test_thisKeyDoesNotExist') },
    }).then((response) => response.json() as Promise<{ error: { code: string; message: string } }>);
    expect(direct.error.code).toBe('INVALID_API_KEY');
    expect(await page.textContent('#sign-in-error .error-code')).toBe(direct.error.code);
    expect(await page.textContent('#sign-in-error .error-message')).toBe(direct.error.message);
    expect(await browserStorage()).toEqual({ session: {}, local: {}, cookie: '' });
    expect(await context.cookies()).toEqual([]);
    expect(await page.locator('#merchant-name').count()).toBe(0);
    await shoot('wrong-key-desktop');
  });

  it("never shows another merchant's data: B does not list A's session, and opening its id is not found", async () => {
    const a = await t.seed.createMerchant({ name: 'Shop A', mode: 'test' });
    const b = await t.seed.createMerchant({ name: 'Shop B', mode: 'live' });
    const payee = await bank.customer({ balance: 0 });
    const ofA = await createSession(a.apiKey, payee, 'a-1');
    const ofB = await createSession(b.apiKey, payee, 'b-1');
    await openPage();
    await signIn(b.apiKey);
    await page.click('#nav-sessions');
    // A live key: no test-mode banner, and the world says LIVE.
    expect(await page.locator('#test-banner').count()).toBe(0);
    expect(await page.textContent('#world-badge')).toBe('LIVE');
    await page.waitForSelector(`#sessions [data-session-id="${ofB}"]`);
    expect(await page.locator(`#sessions [data-session-id="${ofA}"]`).count()).toBe(0);

    // The search box opens an id it is given (the API then says whether it is this merchant's).
    await page.fill('#sessions-search', ofA);
    await page.click('#sessions-apply');
    await page.waitForSelector('#session-error');
    expect(await page.textContent('#session-detail h1')).toBe('Session not found');
    expect(await page.textContent('#session-error .error-code')).toBe('SESSION_NOT_FOUND');
    expect(await page.textContent('#session-detail')).not.toContain('a-1');
  });

  it('pages older sessions on demand, 20 at a time, newest first', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Busy Shop' });
    const payee = await bank.customer({ balance: 0 });
    const ids: string[] = [];
    for (let n = 1; n <= 23; n += 1) ids.push(await createSession(merchant.apiKey, payee, `bulk-${n}`));
    await openPage();
    await signIn(merchant.apiKey);
    await page.click('#nav-sessions');
    await page.waitForSelector(`#sessions [data-session-id="${ids[22]}"]`);
    expect(await page.locator('#sessions [data-session-id]').count()).toBe(20);
    await page.click('#sessions-more');
    await page.waitForSelector(`#sessions [data-session-id="${ids[0]}"]`);
    expect(
      await page
        .locator('#sessions [data-session-id]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id'))),
    ).toEqual([...ids].reverse());
    expect(await page.locator('#sessions-more').count()).toBe(0);
  });

  it('lists mandates and shows a mandate with its charges', async () => {
    const shop = await bank.customer({ balance: 0 });
    const merchant = await t.seed.createMerchant({ name: 'Magazines Ltd', settlement_iban: shop.iban });
    const customer = await bank.customer({ balance: 50_000 });
    const created = await t.rest('POST', '/recurring/mandates', {
      headers: bearer(merchant.apiKey),
      body: {
        customer_alias: customer.alias,
        amount: 3_000,
        currency: 'LYD',
        interval: 'monthly',
        description: 'Monthly magazine',
        start_date: new Date().toISOString().slice(0, 10),
      },
    });
    expect(created.status).toBe(201);
    const mandateId = created.body.mandate_id as string;
    expect(
      (await t.rest('POST', `/recurring/mandates/${mandateId}/confirm`, { body: { otp: customer.otp } })).status,
    ).toBe(200);
    const charged = await t.rest('POST', `/recurring/mandates/${mandateId}/charge`, {
      headers: bearer(merchant.apiKey),
      body: { amount: 2_500, reference: 'issue-12' },
    });
    expect(charged.status).toBe(201);

    await openPage();
    await signIn(merchant.apiKey);
    await page.click('#nav-mandates');
    await page.waitForSelector(`#mandates [data-mandate-id="${mandateId}"] [data-status="ACTIVE"]`);
    await page.click(`#mandates [data-mandate-id="${mandateId}"] a`);
    await page.waitForSelector(`#charges [data-charge-id="${charged.body.charge_id}"] [data-status="COMPLETED"]`, {
      timeout: 15_000,
    });
    expect(await page.textContent('#charges')).toContain('2.500 LYD');
    expect(await page.textContent('#charges')).toContain('issue-12');
    await shoot('mandate-desktop');
  });

  it('refunds a paid session from its page after a confirmation: a partial amount with a reason, a refusal shown with its code, then all that is left', async () => {
    const shop = await bank.customer({ balance: 100_000 });
    const merchant = await t.seed.createMerchant({ name: 'Refund Corner', settlement_iban: shop.iban });
    const payer = await bank.customer({ balance: 50_000 });
    const sessionId = await createSession(merchant.apiKey, shop, 'order-refund');
    await pay(sessionId, payer);
    await openPage();
    await signIn(merchant.apiKey);
    await page.goto(`${t.platform.restUrl}/dashboard#/sessions/${sessionId}`);
    await page.waitForSelector('#session-status[data-status="COMPLETED"]');
    await page.waitForSelector('#refund-form');
    expect(await page.textContent('#refunded')).toBe('Refunded 0.000 LYD of 12.500 LYD');

    await page.fill('#refund-amount', '2.5');
    await page.fill('#refund-reason', 'One ticket returned');
    // The red button asks first, in major units; Cancel moves nothing.
    await page.click('#refund-button');
    expect(await page.textContent('#refund-question')).toBe('Refund 2.500 LYD to the payer?');
    await page.click('#refund-cancel');
    expect(await page.locator('#refund-question').count()).toBe(0);
    expect(await page.locator('#refund-list').count()).toBe(0);
    expect(await bank.balance(payer.iban)).toBe(50_000 - 12_500);
    // A changed amount is asked again.
    await page.click('#refund-button');
    await page.fill('#refund-amount', '2.50');
    expect(await page.locator('#refund-question').count()).toBe(0);
    await page.click('#refund-button');
    await page.click('#refund-confirm');
    await page.waitForSelector('#refund-list li[data-status="COMPLETED"]');
    expect(await page.textContent('#refunded')).toBe('Refunded 2.500 LYD of 12.500 LYD');
    expect(await page.textContent('#refund-list')).toContain('One ticket returned');
    expect(await page.locator('#timeline li .timeline-label').allTextContents()).toEqual([
      'PENDING',
      'PROCESSING',
      'COMPLETED',
      'REFUND',
      'REFUND COMPLETED',
    ]);
    // The money moved at the bank: the payer has 2.500 LYD back.
    expect(await bank.balance(payer.iban)).toBe(50_000 - 12_500 + 2_500);
    await shoot('session-refunded-desktop');

    // More than is left: the API's refusal, as it answered; nothing moves.
    await page.fill('#refund-amount', '20');
    await page.click('#refund-button');
    expect(await page.textContent('#refund-question')).toBe('Refund 20.000 LYD to the payer?');
    await page.click('#refund-confirm');
    await page.waitForSelector('#refund-error');
    expect(await page.textContent('#refund-error .error-code')).toBe('REFUND_AMOUNT_EXCEEDED');
    expect(await bank.balance(payer.iban)).toBe(40_000);

    // No amount: all that is left; then nothing is left to refund, and the form goes.
    await page.fill('#refund-amount', '');
    await page.click('#refund-button');
    expect(await page.textContent('#refund-question')).toBe('Refund 10.000 LYD to the payer?');
    await page.click('#refund-confirm');
    await page.waitForSelector('#refund-form', { state: 'detached' });
    expect(await page.textContent('#refunded')).toBe('Refunded 12.500 LYD of 12.500 LYD');
    expect(await page.locator('#refund-list li[data-status="COMPLETED"]').count()).toBe(2);
    expect(await bank.balance(payer.iban)).toBe(50_000);
  });

  it('fits a phone screen (390 px): sign-in, the list and a session', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Phone Shop', webhook_url: (await receiver()).url });
    const sessionId = await createSession(merchant.apiKey, await bank.customer({ balance: 0 }), 'phone-1');
    await pay(sessionId, await bank.customer());
    await createSession(merchant.apiKey, await bank.customer({ balance: 0 }), 'phone-2');
    await openPage(390, 844);
    await page.goto(`${t.platform.restUrl}/dashboard`);
    await fitsTheScreen();
    await shoot('sign-in-phone');
    await page.fill('#api-key', merchant.apiKey);
    await page.click('#sign-in-button');
    await page.click('#nav-sessions');
    await page.waitForSelector(`#sessions [data-session-id="${sessionId}"] .row-status[data-status="COMPLETED"]`);
    await fitsTheScreen();
    await shoot('sessions-phone');
    await page.click(`#sessions [data-session-id="${sessionId}"] a`);
    await page.waitForSelector('#deliveries .delivery[data-status="DELIVERED"]');
    await fitsTheScreen();
    await shoot('session-detail-phone');
    await page.click('#nav-webhooks');
    await page.waitForSelector('#deliveries .delivery');
    await fitsTheScreen();
    await shoot('webhooks-phone');
  });
});
