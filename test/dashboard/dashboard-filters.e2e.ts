import type { Browser, Page } from 'playwright-core';
import {
  bearer,
  FAST_ENGINE,
  paidSession,
  refundSettles,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';
import {
  DESKTOP,
  fitsTheScreen,
  launchChromium,
  PHONE,
  signIn,
  watchedPage,
  type WatchedPage,
} from './dashboard-support';

/**
 * The dashboard's filter bars on the real list filters (issue 30 item 6) in Chromium, at desktop and
 * phone width: sessions (status, days, reference, amount, metadata), mandates, the merchant-wide
 * refunds (status, days, reference, metadata) and webhook deliveries (status, days, event). Each
 * filter must narrow its list to exactly the rows the API keeps. Rows meant for the day filters are
 * moved to fixed past days in the database, since everything here is created today.
 */
describe('dashboard list filters in a browser', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let browser: Browser;
  let receiver: TestWebhookReceiver;
  let open: WatchedPage | undefined;
  let merchant: { merchantId: string; apiKey: string };
  /** Where sessions are paid. */
  let shop: Customer;
  const sessions: Record<'a' | 'b' | 'c' | 'old', string> = { a: '', b: '', c: '', old: '' };
  const refunds: Record<'r1' | 'r2' | 'r3', string> = { r1: '', r2: '', r3: '' };
  const mandates: Record<'gold' | 'silver' | 'old', string> = { gold: '', silver: '', old: '' };
  const deliveries: Record<'completed' | 'expired' | 'old', string> = { completed: '', expired: '', old: '' };

  const api = (method: string, path: string, body?: unknown) =>
    t.rest(method, path, { headers: bearer(merchant.apiKey), body });
  const backdate = (table: string, id: string, day: string) =>
    t.platform.db
      .knex(`payments.${table}`)
      .where({ id })
      .update({ created_at: new Date(`${day}T12:00:00Z`) });
  const eventually = async <T>(read: () => Promise<T | undefined>, what: string): Promise<T> => {
    for (let tries = 0; tries < 150; tries += 1) {
      const found = await read();
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const createSession = async (amount: number, reference: string, metadata: Record<string, string>) => {
    const created = await api('POST', '/payments/sessions', {
      amount,
      currency: 'LYD',
      destination: { type: 'alias', value: shop.alias },
      reference,
      metadata,
    });
    expect(created.status).toBe(201);
    return created.body.session_id as string;
  };

  beforeAll(async () => {
    receiver = await startTestReceiver();
    // An expired session's webhook is refused: its delivery ends FAILED (one retry, 0.2 s later); the rest are DELIVERED.
    receiver.answer((webhook) => (webhook.envelope.event === 'payment.expired' ? 500 : 200));
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, env: { WEBHOOK_RETRY_SCHEDULE: '0.2' } });
    bank = await startPaymentBank(t);
    shop = await bank.customer({ balance: 0 });
    // The settlement account holds 2.000 LYD: refunds of 1.000 and 0.500 go through, one of 2.000 between them fails.
    const till = await bank.customer({ balance: 2_000 });
    merchant = await t.seed.createMerchant({
      name: 'Filter Bazaar',
      settlement_iban: till.iban,
      webhook_url: receiver.url,
    });
    const payer = await bank.customer({ balance: 50_000 });

    sessions.old = await createSession(2_000, 'ord-old', {});
    await backdate('payment_sessions', sessions.old, '2026-01-15');
    sessions.a = await createSession(1_000, 'ord-a', { channel: 'web' });
    sessions.b = await paidSession(t, merchant.apiKey, shop, payer, 5_000, {
      reference: 'ord-b',
      metadata: { channel: 'pos' },
    });
    sessions.c = await createSession(9_000, 'ord-c', { channel: 'web', order_id: '1042' });
    expect((await api('POST', `/payments/sessions/${sessions.c}/expire`)).status).toBe(200);

    const refund = async (amount: number, reference: string, rma: string) => {
      const made = await api('POST', `/payments/sessions/${sessions.b}/refunds`, {
        amount,
        reference,
        metadata: { rma },
      });
      expect(made.status).toBe(201);
      return (await refundSettles(t, merchant.apiKey, made.body.refund_id)) as { refund_id: string; status: string };
    };
    const r1 = await refund(1_000, 'ret-1', '1');
    const r2 = await refund(2_000, 'ret-2', '2');
    const r3 = await refund(500, 'ret-3', '3');
    expect([r1.status, r2.status, r3.status]).toEqual(['COMPLETED', 'FAILED', 'COMPLETED']);
    Object.assign(refunds, { r1: r1.refund_id, r2: r2.refund_id, r3: r3.refund_id });
    await backdate('refunds', refunds.r1, '2026-01-20');

    const customer = await bank.customer({ balance: 10_000 });
    const mandate = async (plan: string) => {
      const created = await api('POST', '/recurring/mandates', {
        customer_alias: customer.alias,
        amount: 3_000,
        currency: 'LYD',
        interval: 'monthly',
        start_date: new Date().toISOString().slice(0, 10),
        metadata: { plan },
      });
      expect(created.status).toBe(201);
      return created.body.mandate_id as string;
    };
    mandates.old = await mandate('bronze');
    await backdate('mandates', mandates.old, '2026-02-10');
    mandates.gold = await mandate('gold');
    mandates.silver = await mandate('silver');
    const confirmed = await t.rest('POST', `/recurring/mandates/${mandates.gold}/confirm`, {
      body: { otp: customer.otp },
    });
    expect(confirmed.status).toBe(200);

    // Deliveries: the expired session's FAILED, the completed payment's DELIVERED, a refund's moved to March.
    // One of each: one session expired, one paid, one refund failed.
    const delivery = (event: string, status: string) =>
      eventually(async () => {
        const answer = await api('GET', `/webhooks/deliveries?limit=100&event=${event}&status=${status}`);
        return (answer.body.deliveries as Array<Record<string, string>>)[0]?.delivery_id;
      }, `a ${status} ${event} delivery`);
    deliveries.expired = await delivery('payment.expired', 'FAILED');
    deliveries.completed = await delivery('payment.completed', 'DELIVERED');
    deliveries.old = await delivery('refund.failed', 'DELIVERED');
    await backdate('webhook_deliveries', deliveries.old, '2026-03-05');

    browser = await launchChromium();
  });
  afterEach(async () => {
    const errors = open?.errors ?? [];
    await open?.context.close();
    open = undefined;
    expect(errors).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await bank?.sandbox.stop();
    await t?.stop();
    await receiver?.stop();
  });

  const view = async (viewport: typeof DESKTOP | typeof PHONE, hash: string): Promise<Page> => {
    await open?.context.close();
    open = await watchedPage(browser, viewport);
    await signIn(open.page, t.platform.restUrl, merchant.apiKey);
    await open.page.goto(`${t.platform.restUrl}/dashboard#/${hash}`);
    return open.page;
  };

  /** Waits until the list shows exactly these rows (in any order while it settles), then checks them. */
  const showsExactly = async (page: Page, rows: string, attribute: string, ids: string[]) => {
    const read = () =>
      page
        .locator(`${rows} [${attribute}]`)
        .evaluateAll((found, name) => found.map((row) => row.getAttribute(name as string)), attribute);
    try {
      await page.waitForFunction(
        ({ selector, name, want }) => {
          const shown = [...(globalThis as any).document.querySelectorAll(`${selector} [${name}]`)].map((row: any) =>
            row.getAttribute(name),
          );
          return shown.length === want.length && want.every((id: string) => shown.includes(id));
        },
        { selector: rows, name: attribute, want: ids },
        { timeout: 10_000 },
      );
    } catch {
      expect(await read()).toEqual(ids);
    }
    expect((await read()).sort()).toEqual([...ids].sort());
  };

  /** One filter bar: sets the fields given (by the part after "<list>-"), applies, and clears afterwards. */
  const filterBy = async (page: Page, list: string, fields: Record<string, string>) => {
    await page.click(`#${list}-clear`);
    for (const [name, value] of Object.entries(fields)) {
      const selector = `#${list}-${name}`;
      if ((await page.locator(selector).evaluate((element) => element.tagName)) === 'SELECT')
        await page.selectOption(selector, value);
      else await page.fill(selector, value);
    }
    await page.click(`#${list}-apply`);
  };

  describe.each([
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const)('at %s width', (name, viewport) => {
    const settle = async (page: Page, shot: string) => {
      if (viewport === PHONE) await fitsTheScreen(page);
      await page.screenshot({ path: `/tmp/dash2-${shot}-${name}.png`, fullPage: true });
    };

    it('sessions narrow by status, days, reference, amount and metadata; the detail shows its metadata', async () => {
      const page = await view(viewport, 'sessions');
      const rows = (ids: string[]) => showsExactly(page, '#sessions', 'data-session-id', ids);
      await rows([sessions.a, sessions.b, sessions.c, sessions.old]);
      await filterBy(page, 'sessions', { status: 'COMPLETED' });
      await rows([sessions.b]);
      await filterBy(page, 'sessions', { from: '2026-01-01', to: '2026-01-31' });
      await rows([sessions.old]);
      await filterBy(page, 'sessions', { search: 'ord-a' });
      await rows([sessions.a]);
      // 4 to 9.5 LYD: the 5.000 and the 9.000 sessions, not 1.000 nor 2.000.
      await filterBy(page, 'sessions', { amountMin: '4', amountMax: '9.5' });
      await rows([sessions.b, sessions.c]);
      await filterBy(page, 'sessions', { metadata: 'channel=web' });
      await rows([sessions.a, sessions.c]);
      await filterBy(page, 'sessions', { metadata: 'channel=web', status: 'EXPIRED' });
      await rows([sessions.c]);
      await settle(page, 'sessions-filtered');
      // A pair without "=" is named before anything is asked.
      await filterBy(page, 'sessions', { metadata: 'channel' });
      await page.waitForSelector('#sessions-error');
      expect(await page.textContent('#sessions-error')).toContain('metadata:');

      await page.click(`#sessions [data-session-id="${sessions.c}"] a`);
      await page.waitForSelector('#session-metadata');
      const pairs = await page
        .locator('#session-metadata .field')
        .evaluateAll((fields) => fields.map((field) => field.textContent));
      expect(pairs).toEqual(['channelweb', 'order_id1042']);
      await settle(page, 'session-metadata');
      await page.goto(`${t.platform.restUrl}/dashboard#/sessions/${sessions.old}`);
      await page.waitForSelector('#session-metadata-none');
    });

    it('mandates narrow by status, days and metadata; an id opens one', async () => {
      const page = await view(viewport, 'mandates');
      const rows = (ids: string[]) => showsExactly(page, '#mandates', 'data-mandate-id', ids);
      await rows([mandates.gold, mandates.silver, mandates.old]);
      await filterBy(page, 'mandates', { status: 'ACTIVE' });
      await rows([mandates.gold]);
      await filterBy(page, 'mandates', { from: '2026-02-01', to: '2026-02-28' });
      await rows([mandates.old]);
      await filterBy(page, 'mandates', { metadata: 'plan=silver' });
      await rows([mandates.silver]);
      await filterBy(page, 'mandates', { status: 'PENDING_CONFIRMATION', metadata: 'plan=gold' });
      await page.waitForSelector('#mandates-none');
      await rows([]);
      await filterBy(page, 'mandates', { status: 'PENDING_CONFIRMATION' });
      await rows([mandates.silver, mandates.old]);
      await settle(page, 'mandates-filtered');
      // Mandates have no reference: a search is an id.
      await filterBy(page, 'mandates', { search: 'gold' });
      await page.waitForSelector('#mandates-error');
      expect(await page.textContent('#mandates-error')).toContain('search:');
      await filterBy(page, 'mandates', { search: mandates.gold });
      await page.waitForSelector('#mandate-status[data-status="ACTIVE"]');
    });

    it('refunds across sessions narrow by status, days, reference and metadata', async () => {
      const page = await view(viewport, 'refunds');
      const rows = (ids: string[]) => showsExactly(page, '#refund-rows', 'data-refund-id', ids);
      await rows([refunds.r3, refunds.r2, refunds.r1]);
      await filterBy(page, 'refunds', { status: 'FAILED' });
      await rows([refunds.r2]);
      await filterBy(page, 'refunds', { from: '2026-01-01', to: '2026-01-31' });
      await rows([refunds.r1]);
      await filterBy(page, 'refunds', { search: 'ret-3' });
      await rows([refunds.r3]);
      await filterBy(page, 'refunds', { metadata: 'rma=2' });
      await rows([refunds.r2]);
      await filterBy(page, 'refunds', { status: 'COMPLETED', metadata: 'rma=2' });
      await page.waitForSelector('#refunds-none');
      await filterBy(page, 'refunds', { status: 'COMPLETED' });
      await rows([refunds.r3, refunds.r1]);
      await settle(page, 'refunds-filtered');
      await filterBy(page, 'refunds', { search: refunds.r2 });
      await rows([refunds.r2]);
    });

    it('webhook deliveries narrow by status, days and event', async () => {
      const page = await view(viewport, 'webhooks');
      const rows = (ids: string[]) => showsExactly(page, '#deliveries', 'data-delivery-id', ids);
      await page.waitForSelector(`#deliveries [data-delivery-id="${deliveries.completed}"]`);
      await filterBy(page, 'deliveries', { status: 'FAILED' });
      await rows([deliveries.expired]);
      await filterBy(page, 'deliveries', { search: 'payment.completed' });
      await rows([deliveries.completed]);
      await filterBy(page, 'deliveries', { from: '2026-03-01', to: '2026-03-31' });
      await rows([deliveries.old]);
      await filterBy(page, 'deliveries', { status: 'DELIVERED', search: 'payment.expired' });
      await page.waitForSelector('#deliveries-none');
      await filterBy(page, 'deliveries', { status: 'FAILED', search: 'payment.expired' });
      await rows([deliveries.expired]);
      await settle(page, 'deliveries-filtered');
    });
  });
});
