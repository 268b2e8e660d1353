import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { bearer, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { admin, pay } from '../settlement/support';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 375, height: 667 };
const WIDTHS = [
  ['1280 px', DESKTOP],
  ['375 px', PHONE],
] as const;
/** Set to a folder to keep screenshots of the console for a person to look at. */
const SCREENSHOTS = process.env.OPERATOR_SCREENSHOTS;

/**
 * The operator console (issue 50) in a real browser (Debian's chromium, playwright-core) against
 * the whole platform: sign in with an admin key exchanged for an HttpOnly session cookie (no key
 * in any storage a script reads), find a merchant, suspend and resume it through a confirmation
 * that says what it does, read a bank's liquidity and a settlement cycle, sign out.
 */
describe('operator console in a browser', () => {
  let t: TestPlatform;
  let a: PaymentBank;
  let b: PaymentBank;
  let browser: Browser;
  let merchant: { merchantId: string; apiKey: string };
  let tpp: { tppId: string };
  const contexts: BrowserContext[] = [];

  /** A fresh browser profile at a width; every script error and console error is collected. */
  const openPage = async (viewport: { width: number; height: number }) => {
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    return { context, page, errors };
  };
  /** What scripts of the page can read: both storages and document.cookie. */
  const readableByScripts = (page: Page) =>
    page.evaluate(() => ({
      session: { ...(globalThis as any).sessionStorage },
      local: { ...(globalThis as any).localStorage },
      cookie: (globalThis as any).document.cookie,
    }));
  const signIn = async (page: Page, key: string) => {
    const answer = await page.goto(`${t.platform.restUrl}/operator`);
    expect(answer?.status()).toBe(200);
    await page.fill('#admin-key', key);
    await page.click('#sign-in-button');
    await page.waitForSelector('#operator-name');
  };
  const merchantKeyAnswers = async () => {
    const answer = await t.rest('GET', '/webhooks/endpoints', { headers: bearer(merchant.apiKey) });
    return { status: answer.status, code: answer.body?.error?.code as string | undefined };
  };
  const confirmContainment = async (page: Page, action: 'suspend' | 'resume', effect: RegExp) => {
    await page.fill('#containment-reason', `${action} from the console test`);
    await page.click(`#${action}-button`);
    await page.waitForSelector('#confirm-dialog[open]');
    expect(await page.textContent('#confirm-effect')).toMatch(effect);
    await page.click('#confirm-ok');
    await page.waitForSelector('#confirm-dialog', { state: 'hidden' });
  };
  /** Nothing wider than the screen: no sideways scrolling at phone width. */
  const fitsTheScreen = async (page: Page) => {
    const widths = await page.evaluate(() => ({
      content: (globalThis as any).document.documentElement.scrollWidth,
      screen: (globalThis as any).document.documentElement.clientWidth,
    }));
    expect(widths.content).toBeLessThanOrEqual(widths.screen);
  };
  const statusIs = (page: Page, status: string) =>
    page.waitForFunction(
      (wanted) => (globalThis as any).document.querySelector('#participant-status')?.textContent === wanted,
      status,
    );

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, env: { SETTLEMENT_INTERVAL_SECONDS: '0' } });
    [a, b] = [await startPaymentBank(t), await startPaymentBank(t)];
    merchant = await t.seed.createMerchant({ name: 'Console Corner Shop' });
    tpp = await t.seed.registerTpp({ name: 'Corner Budget App' });
    const cap = await t.rest('PUT', `/banks/${a.handle}/net-debit-caps/LYD`, {
      headers: admin(t),
      body: { net_debit_cap: 10_000 },
    });
    expect(cap.status).toBe(200);
    await pay(t, merchant.apiKey, await a.customer(), await b.customer(), 1_500);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await a?.sandbox.stop();
    await b?.sandbox.stop();
    await t?.stop();
  });

  it.each([
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ])(
    'at %s width: signs in, suspends and resumes a merchant, reads a bank’s liquidity, signs out; no key in the page',
    async (_name, viewport) => {
      const { context, page, errors } = await openPage(viewport);
      await signIn(page, t.adminKey);
      expect(await page.textContent('#operator-name')).toBe('ADMIN_KEY');
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({ name: 'gateway_operator', httpOnly: true, sameSite: 'Strict' });
      expect(cookie!.value).toMatch(/^ocs_/);
      expect(await readableByScripts(page)).toEqual({ session: {}, local: {}, cookie: '' });

      // The participants list: banks, merchants and TPPs, searchable.
      await page.waitForSelector(`#participants li[data-id="${a.handle}"]`);
      await page.fill('#participant-search', 'corner');
      await page.waitForSelector(`#participants li[data-id="${a.handle}"]`, { state: 'detached' });
      const tppRow = page.locator(`#participants li[data-id="${tpp.tppId}"]`);
      expect(await tppRow.textContent()).toMatch(/Corner Budget App.*tpp.*(TEST|LIVE).*spec.*ACTIVE/);
      const row = page.locator(`#participants li[data-id="${merchant.merchantId}"]`);
      expect(await row.textContent()).toMatch(/Console Corner Shop.*merchant.*LIVE.*ACTIVE/);
      await row.locator('a').click();
      await statusIs(page, 'ACTIVE');

      // A refused action shows the API's code and message, and nothing was done.
      await page.fill('#containment-reason', 'x'.repeat(501));
      await page.click('#suspend-button');
      await page.click('#confirm-ok');
      await page.waitForSelector('#containment-error');
      expect(await page.textContent('#containment-error')).toMatch(/^VALIDATION_ERROR .*reason/);
      expect((await merchantKeyAnswers()).status).toBe(200);
      await statusIs(page, 'ACTIVE');

      // Suspend: the dialog says what it does; in between, the merchant's key is refused.
      await confirmContainment(page, 'suspend', /403 MERCHANT_SUSPENDED/);
      await statusIs(page, 'SUSPENDED');
      expect(await merchantKeyAnswers()).toEqual({ status: 403, code: 'MERCHANT_SUSPENDED' });
      await confirmContainment(page, 'resume', /work again/);
      await statusIs(page, 'ACTIVE');
      expect((await merchantKeyAnswers()).status).toBe(200);

      // The debtor bank's liquidity, in major units from the one formatter.
      await page.click('#back-to-participants');
      await page.fill('#participant-search', '');
      await page.locator(`#participants li[data-id="${a.handle}"] a`).click();
      const live = page.locator('#positions tr[data-currency="LYD"][data-livemode="true"]');
      await live.waitFor();
      expect({
        cap: await live.locator('.cap').textContent(),
        position: await live.locator('.position').textContent(),
        reserved: await live.locator('.reserved').textContent(),
        headroom: await live.locator('.headroom').textContent(),
      }).toEqual({ cap: '10.000 LYD', position: '1.500 LYD', reserved: '0.000 LYD', headroom: '8.500 LYD' });
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/operator-bank-${_name}.png`, fullPage: true });
      // Nothing wider than the screen.
      const widths = await page.evaluate(() => ({
        content: (globalThis as any).document.documentElement.scrollWidth,
        screen: (globalThis as any).document.documentElement.clientWidth,
      }));
      expect(widths.content).toBeLessThanOrEqual(widths.screen);

      // Sign out: the session ends at the gateway, the cookie is gone.
      await page.click('#sign-out');
      await page.waitForSelector('#admin-key');
      expect(await context.cookies()).toEqual([]);
      const stale = await fetch(`${t.platform.restUrl}/operator/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: t.platform.restUrl,
          cookie: `gateway_operator=${cookie!.value}`,
        },
        body: JSON.stringify({ query: '{ currentOperator { name } }' }),
      });
      expect(stale.status).toBe(401);
      expect(await readableByScripts(page)).toEqual({ session: {}, local: {}, cookie: '' });
      expect(errors).toEqual([]);
    },
    120_000,
  );

  let cycleId: string;
  it.each(WIDTHS)(
    'reads a settlement cycle with its positions at %s',
    async (_width, viewport) => {
      if (!cycleId) {
        const run = await t.rest('POST', '/settlement/cycles', { headers: admin(t) });
        expect(run.status).toBe(201);
        cycleId = run.body.cycle_id as string;
      }
      const { page, errors } = await openPage(viewport);
      await signIn(page, t.adminKey);
      await page.click('#nav-settlement');
      const cycle = page.locator(`#cycles li[data-id="${cycleId}"]`);
      await cycle.waitFor();
      const text = await cycle.textContent();
      expect(text).toContain(`${a.handle}: DEBIT 1.500 LYD`);
      expect(text).toContain(`${b.handle}: CREDIT 1.500 LYD`);
      await fitsTheScreen(page);
      expect(errors).toEqual([]);
    },
    60_000,
  );

  it('retries a failed settlement position from the page, behind a confirmation naming its core reference', async () => {
    await pay(t, merchant.apiKey, await a.customer(), await b.customer(), 700);
    a.sandbox.injectFaults({ errorRate: 1, errorStatus: 422, operations: ['debit'] });
    try {
      const run = await t.rest('POST', '/settlement/cycles', { headers: admin(t) });
      expect(run.body.status).toBe('PARTIALLY_FAILED');
      const cycleId = run.body.cycle_id as string;
      const reference = `${cycleId}:${a.handle}:LYD`;
      const { page, errors } = await openPage(DESKTOP);
      await signIn(page, t.adminKey);
      await page.click('#nav-settlement');
      const position = page.locator(`#cycles li[data-id="${cycleId}"] li[data-bank="${a.handle}"]`);
      await position.locator('.retry-position').click();
      await page.waitForSelector('#retry-confirm-dialog[open]');
      expect(await page.textContent('#retry-confirm-effect')).toContain(`DEBIT of 0.700 LYD`);
      expect(await page.textContent('#retry-confirm-effect')).toContain(reference);
      // The dialog closes as the retry is sent: its answer, not the closing, says the retry was done.
      const retried = page.waitForResponse((r) => r.request().postData()?.includes('OperatorRetryPosition') === true);
      await page.click('#retry-confirm-ok');
      await page.waitForSelector('#retry-confirm-dialog', { state: 'hidden' });
      expect((await retried).status()).toBe(200);
      // The core still refuses: the position stays FAILED, and the operator's retry is on record.
      const audited = await t.rest('GET', `/admin/audit?action=settlement.retried&target=${reference}`, {
        headers: admin(t),
      });
      expect(audited.body.entries).toEqual([
        expect.objectContaining({ actor: { kind: 'admin', id: null, name: 'ADMIN_KEY' }, target: reference }),
      ]);
      expect(['FAILED', 'PENDING']).toContain(await position.getAttribute('data-status'));
      expect(errors).toEqual([]);
    } finally {
      a.sandbox.clearFaults();
    }
  }, 60_000);

  it.each(WIDTHS)(
    'filters the audit log and names the operator; creates a key shown once and revokes it with the key it made, at %s',
    async (width, viewport) => {
      const shift = `day-shift-${width.replace(' px', '')}`;
      // A merchant of its own, suspended and resumed by the key: the log has entries to filter.
      const audited = await t.seed.createMerchant({ name: `Audited Shop ${width}`, mode: 'test' });
      for (const step of ['suspend', 'resume'])
        expect((await t.rest('POST', `/merchants/${audited.merchantId}/${step}`, { headers: admin(t) })).status).toBe(
          200,
        );
      const { page, errors } = await openPage(viewport);
      await signIn(page, t.adminKey);
      // A participant's recent entries, then the whole log filtered by action and target.
      await page.goto(`${t.platform.restUrl}/operator#/participants/merchant/${audited.merchantId}`);
      await page.waitForSelector('#recent-audit .audit-entry');
      await page.click('#nav-audit');
      await page.waitForSelector('.audit-entry');
      await page.fill('#audit-action', 'merchant.suspended');
      await page.fill('#audit-target', audited.merchantId);
      await page.click('#audit-apply');
      await page.waitForFunction(
        () => {
          const rows = [...(globalThis as any).document.querySelectorAll('.audit-entry')];
          return rows.length > 0 && rows.every((row: any) => row.dataset.action === 'merchant.suspended');
        },
        undefined,
        { timeout: 10_000 },
      );
      const first = page.locator('.audit-entry').first();
      expect(await first.locator('.audit-target').textContent()).toBe(audited.merchantId);
      expect(await first.locator('.audit-actor').textContent()).toBe('ADMIN_KEY');
      expect(await first.locator('.audit-changes').textContent()).toContain('status: ACTIVE → SUSPENDED');
      await fitsTheScreen(page);
      // The filtered log as a CSV file, built in the page from the API's answers.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#audit-export')]);
      const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
      expect(csv[0]).toBe('audit_id,at,actor_kind,actor_id,actor_name,action,target,changes,ip,request_id');
      const rows = csv.slice(1, -1);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row).toContain(`,admin,,ADMIN_KEY,merchant.suspended,${audited.merchantId},`);
      expect(await page.textContent('#audit-exported')).toBe(`${rows.length} entries exported.`);
      // An unknown action is the API's refusal, shown as it is.
      await page.fill('#audit-action', 'merchant.exploded');
      await page.click('#audit-apply');
      await page.waitForSelector('#audit-error');
      expect(await page.textContent('#audit-error')).toMatch(/^VALIDATION_ERROR /);

      // Admin keys: a new key is shown once, with its maker; it works; revoking it takes the key it made.
      await page.click('#nav-keys');
      await page.fill('#new-key-name', shift);
      await page.click('#create-key');
      const secret = (await page.locator('#created-key-secret').textContent())!;
      expect(secret).toMatch(/^adm_/);
      await page.click('#created-key-hide');
      expect(await page.locator('#created-key-secret').count()).toBe(0);
      expect(await readableByScripts(page)).toEqual({ session: {}, local: {}, cookie: '' });
      const made = await t.rest('POST', '/admin/keys', {
        headers: { 'x-service-admin-key': secret },
        body: { name: `${shift}-junior` },
      });
      expect(made.status).toBe(201);
      await page.click('#nav-audit');
      await page.click('#nav-keys');
      const junior = page.locator(`#admin-keys li[data-name="${shift}-junior"]`);
      await junior.waitFor();
      expect(await junior.locator('.key-maker').textContent()).toBe(shift);
      await fitsTheScreen(page);
      await page.locator(`#admin-keys li[data-name="${shift}"] .revoke-key`).click();
      await page.waitForSelector('#confirm-dialog[open]');
      expect(await page.textContent('#revoke-lineage')).toBe(`1 key it made will be revoked with it: ${shift}-junior.`);
      await page.click('#confirm-ok');
      await page.waitForSelector(`#admin-keys li[data-name="${shift}-junior"] .badge-revoked`);
      await page.waitForSelector(`#admin-keys li[data-name="${shift}"] .badge-revoked`);
      const refused = await t.rest('GET', '/admin/audit', { headers: { 'x-service-admin-key': secret } });
      expect(refused.status).toBe(401);
      expect(errors).toEqual([]);
    },
    60_000,
  );

  it.each(WIDTHS)(
    'rotates a bank’s internal key (the old one kept for its grace) and a merchant’s key, each confirmed and shown once, at %s',
    async (_width, viewport) => {
      const bank = await t.seed.registerBank();
      const shop = await t.seed.createMerchant({ name: 'Rotation Shop', mode: 'test' });
      const { page, errors } = await openPage(viewport);
      await signIn(page, t.adminKey);

      await page.goto(`${t.platform.restUrl}/operator#/participants/bank/${bank.handle}`);
      await page.click('#rotate-internal-key');
      await page.waitForSelector('#key-confirm-dialog[open]');
      expect(await page.textContent('#key-confirm-effect')).toMatch(/previous key is still accepted on callbacks/);
      await page.click('#key-confirm-ok');
      const internalKey = (await page.locator('#new-secret').textContent())!;
      expect(internalKey).not.toBe(bank.internalKey);
      expect(await page.textContent('#key-outcome-note')).toMatch(
        /^The previous internal key is accepted on callbacks until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\.$/,
      );
      // Both keys live: the new one, and the old one until its grace ends (a day from now).
      const keys = await t.platform.db
        .knex('auth.credentials')
        .where({ owner_id: bank.handle, kind: 'internal_key', revoked_at: null })
        .select('expires_at');
      const ends = keys.map((row: { expires_at: Date | null }) => (row.expires_at ? 'grace' : 'open')).sort();
      expect(ends).toEqual(['grace', 'open']);
      await page.click('#key-outcome-hide');
      expect(await page.locator('#new-secret').count()).toBe(0);
      await page.waitForSelector('#recent-audit .audit-entry[data-action="bank.internal_key_rotated"]');

      await page.goto(`${t.platform.restUrl}/operator#/participants/merchant/${shop.merchantId}`);
      await page.click('#rotate-merchant-key');
      await page.waitForSelector('#key-confirm-dialog[open]');
      await page.click('#key-confirm-ok');
      const apiKey = (await page.locator('#new-secret').textContent())!;
      expect(apiKey).toMatch(/^mk_test_/);
      const answer = async (key: string) =>
        (await t.rest('GET', '/webhooks/endpoints', { headers: bearer(key) })).status;
      expect({ old: await answer(shop.apiKey), new: await answer(apiKey) }).toEqual({ old: 401, new: 200 });
      await page.click('#key-outcome-hide');
      expect(await readableByScripts(page)).toEqual({ session: {}, local: {}, cookie: '' });
      expect(errors).toEqual([]);
    },
    60_000,
  );

  it.each(WIDTHS)(
    'sets and removes a bank’s net debit cap in major units, each confirmed, at %s',
    async (_width, viewport) => {
      const bank = await t.seed.registerBank();
      const { page, errors } = await openPage(viewport);
      await signIn(page, t.adminKey);
      await page.goto(`${t.platform.restUrl}/operator#/participants/bank/${bank.handle}`);
      await page.waitForSelector('#no-positions');
      // An amount the currency cannot hold is refused in the page; the API is not asked.
      await page.fill('#cap-amount', '1.2345');
      await page.click('#cap-set');
      expect(await page.textContent('#cap-error')).toMatch(/^VALIDATION_ERROR net_debit_cap: an amount in LYD/);
      await page.fill('#cap-amount', '2,500.5');
      await page.click('#cap-set');
      await page.waitForSelector('#cap-confirm-dialog[open]');
      expect(await page.textContent('#cap-confirm-title')).toBe(`Cap ${bank.handle} at 2,500.500 LYD (live)?`);
      expect(await page.textContent('#cap-confirm-effect')).toContain('422 NET_DEBIT_CAP_EXCEEDED');
      await page.click('#cap-confirm-ok');
      const live = page.locator('#positions tr[data-currency="LYD"][data-livemode="true"]');
      await live.waitFor();
      expect(await live.locator('.cap').textContent()).toBe('2,500.500 LYD');
      expect(await live.locator('.headroom').textContent()).toBe('2,500.500 LYD');
      const read = await t.rest('GET', `/banks/${bank.handle}/positions`, { headers: admin(t) });
      expect(JSON.stringify(read.body)).toContain('"net_debit_cap":2500500');

      await page.click('.remove-cap[data-currency="LYD"][data-livemode="true"]');
      await page.waitForSelector('#cap-confirm-dialog[open]');
      await page.click('#cap-confirm-ok');
      await page.waitForSelector('#cap-notice');
      expect(await page.textContent('#cap-notice')).toBe('Cap removed: LYD (live) has no cap.');
      // The row stays (the cap row is kept, without a cap), or the bank has no position at all.
      await page.waitForFunction(() => {
        const document = (globalThis as any).document;
        const cap = document.querySelector('#positions tr[data-currency="LYD"][data-livemode="true"] .cap');
        return document.querySelector('#no-positions') !== null || cap?.textContent === 'no cap';
      });
      expect(await page.locator('.remove-cap').count()).toBe(0);
      expect(errors).toEqual([]);
    },
    60_000,
  );

  it('stops the console of a revoked admin key at its next click, back at the sign-in form with the API’s refusal', async () => {
    const made = await t.rest('POST', '/admin/keys', { headers: admin(t), body: { name: 'night-shift' } });
    expect(made.status).toBe(201);
    const { page, errors } = await openPage(DESKTOP);
    await signIn(page, made.body.admin_key as string);
    expect(await page.textContent('#operator-name')).toBe('night-shift');
    await page.waitForSelector(`#participants li[data-id="${merchant.merchantId}"]`);

    const revoked = await t.rest('DELETE', `/admin/keys/${made.body.admin_key_id as string}`, { headers: admin(t) });
    expect(revoked.status).toBe(200);
    await page.click('#nav-settlement');
    await page.waitForSelector('#sign-in-error');
    expect(await page.textContent('#sign-in-error')).toMatch(/^UNAUTHORIZED /);
    // The console errors are Chromium's notes of refused requests: the click's, and the session
    // check the page makes at once when the settlement view's live socket is refused (4403).
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((error) => !/401/.test(error))).toEqual([]);
    // And the revoked key cannot sign in again.
    await page.fill('#admin-key', made.body.admin_key as string);
    await page.click('#sign-in-button');
    await page.waitForFunction(() =>
      /UNAUTHORIZED/.test((globalThis as any).document.querySelector('#sign-in-error')?.textContent ?? ''),
    );
  }, 60_000);

  it('signs out while a call of the page is still on its way: the call is answered first, nothing is refused', async () => {
    const { page, errors } = await openPage(DESKTOP);
    await signIn(page, t.adminKey);
    await page.waitForSelector(`#participants li[data-id="${merchant.merchantId}"]`);
    // The next GraphQL calls reach the gateway 700 ms late: a poll (or a view's read) in flight at the click.
    let held = 0;
    await page.route('**/operator/graphql', async (route) => {
      held += 1;
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue().catch(() => undefined);
    });
    await page.click('#nav-audit');
    await page.waitForTimeout(100);
    await page.click('#sign-out');
    await page.waitForSelector('#admin-key');
    expect(held).toBeGreaterThan(0);
    expect(await page.context().cookies()).toEqual([]);
    await page.waitForTimeout(800); // anything still on its way lands
    expect(errors).toEqual([]);
  }, 60_000);

  it('closes an open console of a revoked admin key within 5 s, with nobody clicking', async () => {
    const made = await t.rest('POST', '/admin/keys', { headers: admin(t), body: { name: 'idle-shift' } });
    expect(made.status).toBe(201);
    const { page } = await openPage(DESKTOP);
    await signIn(page, made.body.admin_key as string);
    await page.waitForSelector(`#participants li[data-id="${merchant.merchantId}"]`);

    const revoked = await t.rest('DELETE', `/admin/keys/${made.body.admin_key_id as string}`, { headers: admin(t) });
    expect(revoked.status).toBe(200);
    // The session check runs every 4 s; the views' own polls (15 s) would come later than this wait.
    await page.waitForSelector('#sign-in-error', { timeout: 8_000 });
    expect(await page.textContent('#sign-in-error')).toMatch(/^UNAUTHORIZED /);
  }, 60_000);
  it('shows a bank’s liquidity live: a cap change and a payment appear without a reload, well under the old 10 s poll', async () => {
    const { page, errors } = await openPage(DESKTOP);
    await signIn(page, t.adminKey);
    await page.goto(`${t.platform.restUrl}/operator#/participants/bank/${a.handle}`);
    await page.waitForSelector('#positions-live[data-live="true"]');
    const row = page.locator('#positions tr[data-currency="LYD"][data-livemode="true"]');
    await row.waitFor();
    const shows = (selector: string, text: string) =>
      page.waitForFunction(
        ([css, wanted]) =>
          (globalThis as any).document.querySelector(`#positions tr[data-currency="LYD"][data-livemode="true"] ${css}`)
            ?.textContent === wanted,
        [selector, text] as const,
        { timeout: 4_000 },
      );

    // The operator (or another console) changes the cap through the API.
    let started = Date.now();
    const cap = await t.rest('PUT', `/banks/${a.handle}/net-debit-caps/LYD`, {
      headers: admin(t),
      body: { net_debit_cap: 12_000 },
    });
    expect(cap.status).toBe(200);
    await shows('.cap', '12.000 LYD');
    expect(Date.now() - started).toBeLessThan(4_000);

    // A cross-bank payment moves the debtor bank's position.
    const before = (await row.locator('.position').textContent())!;
    started = Date.now();
    await pay(t, merchant.apiKey, await a.customer(), await b.customer(), 300);
    const read = await t.rest('GET', `/banks/${a.handle}/positions`, { headers: admin(t) });
    const now = (read.body.positions as Array<{ currency: string; livemode: boolean; position: number }>).find(
      (p) => p.currency === 'LYD' && p.livemode,
    )!.position;
    await shows('.position', `${(now / 1000).toFixed(3)} LYD`);
    expect((await row.locator('.position').textContent()) !== before).toBe(true);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(errors).toEqual([]);
  }, 60_000);

  it('shows a new settlement cycle live, without a reload, well under the old 10 s poll', async () => {
    const { page, errors } = await openPage(DESKTOP);
    await signIn(page, t.adminKey);
    await page.click('#nav-settlement');
    await page.waitForSelector('#cycles-live[data-live="true"]');
    await pay(t, merchant.apiKey, await a.customer(), await b.customer(), 250);
    const started = Date.now();
    const run = await t.rest('POST', '/settlement/cycles', { headers: admin(t) });
    expect(run.status).toBe(201);
    const cycle = page.locator(`#cycles li[data-id="${run.body.cycle_id as string}"]`);
    await cycle.waitFor({ timeout: 4_000 });
    expect(Date.now() - started).toBeLessThan(4_000);
    await page.waitForFunction(
      (id) =>
        /SETTLED/.test((globalThis as any).document.querySelector(`#cycles li[data-id="${id}"]`)?.textContent ?? ''),
      run.body.cycle_id as string,
      { timeout: 4_000 },
    );
    // What else the cycle nets depends on the tests before; this payment is in it, so the debtor owes.
    expect(await cycle.textContent()).toMatch(new RegExp(`${a.handle}: DEBIT \\d[\\d,]*\\.\\d{3} LYD SETTLED`));
    expect(errors).toEqual([]);
  }, 60_000);

  it('states what a suspension and an admin key’s revocation reach, with numbers read from the API', async () => {
    const shop = await t.seed.createMerchant({ name: 'Busy Shop' });
    const payee = await b.customer();
    for (const amount of [100, 200, 300])
      expect(
        (
          await t.rest('POST', '/payments/sessions', {
            headers: bearer(shop.apiKey),
            body: { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
          })
        ).status,
      ).toBe(201);
    for (let i = 0; i < 2; i += 1) {
      const dashboard = await fetch(`${t.platform.restUrl}/dashboard/session`, {
        method: 'POST',
        headers: { origin: t.platform.restUrl, ...bearer(shop.apiKey) },
      });
      expect(dashboard.status).toBe(201);
    }
    const { page, errors } = await openPage(DESKTOP);
    await signIn(page, t.adminKey);
    await page.goto(`${t.platform.restUrl}/operator#/participants/merchant/${shop.merchantId}`);
    await statusIs(page, 'ACTIVE');
    await page.click('#suspend-button');
    await page.waitForSelector('#containment-impact[data-ready="true"]');
    expect(await page.textContent('#containment-impact')).toBe(
      '3 open payment sessions can no longer be paid; 2 signed-in dashboard sessions are refused (403 MERCHANT_SUSPENDED) until it is resumed.',
    );
    await page.click('#confirm-cancel');
    await page.click('#rotate-merchant-key');
    await page.waitForSelector('#key-confirm-impact[data-ready="true"]');
    expect(await page.textContent('#key-confirm-impact')).toBe('2 signed-in dashboard sessions end.');
    await page.click('#key-confirm-cancel');

    // An admin key with one it made, each signed in to a console once.
    const senior = await t.rest('POST', '/admin/keys', { headers: admin(t), body: { name: 'counted-senior' } });
    const junior = await t.rest('POST', '/admin/keys', {
      headers: { 'x-service-admin-key': senior.body.admin_key as string },
      body: { name: 'counted-junior' },
    });
    for (const key of [senior.body.admin_key, junior.body.admin_key])
      expect(
        (
          await fetch(`${t.platform.restUrl}/operator/session`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: t.platform.restUrl },
            body: JSON.stringify({ admin_key: key }),
          })
        ).status,
      ).toBe(201);
    await page.click('#nav-keys');
    await page.locator('#admin-keys li[data-name="counted-senior"] .revoke-key').click();
    await page.waitForSelector('#confirm-dialog[open]');
    await page.waitForFunction(() =>
      /2 console sessions/.test((globalThis as any).document.querySelector('#revoke-sessions')?.textContent ?? ''),
    );
    expect(await page.textContent('#revoke-sessions')).toBe(
      '2 keys revoked, 2 console sessions signed in with them end.',
    );
    await page.click('#confirm-cancel');
    // Nothing was done: the merchant is active and its key works.
    expect((await t.rest('GET', '/webhooks/endpoints', { headers: bearer(shop.apiKey) })).status).toBe(200);
    expect(errors).toEqual([]);
  }, 60_000);

  it('closes a revoked admin key’s console WebSocket within 5 s and signs the console out', async () => {
    const made = await t.rest('POST', '/admin/keys', { headers: admin(t), body: { name: 'live-shift' } });
    expect(made.status).toBe(201);
    const { page, errors } = await openPage(DESKTOP);
    const socket = page.waitForEvent('websocket');
    await signIn(page, made.body.admin_key as string);
    await page.goto(`${t.platform.restUrl}/operator#/participants/bank/${a.handle}`);
    const ws = await socket;
    expect(new URL(ws.url()).pathname).toBe('/operator/graphql');
    await page.waitForSelector('#positions-live[data-live="true"]');
    const closed = new Promise<number>((resolve) => ws.on('close', () => resolve(Date.now())));

    const started = Date.now();
    const revoked = await t.rest('DELETE', `/admin/keys/${made.body.admin_key_id as string}`, { headers: admin(t) });
    expect(revoked.status).toBe(200);
    expect((await closed) - started).toBeLessThan(5_000);
    await page.waitForSelector('#sign-in-error', { timeout: 5_000 });
    expect(await page.textContent('#sign-in-error')).toMatch(/^UNAUTHORIZED /);
    // The one console error is Chromium's note of the refused session check.
    expect(errors.every((error) => /401/.test(error))).toBe(true);
  }, 60_000);
});
