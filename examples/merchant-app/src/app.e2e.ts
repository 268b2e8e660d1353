import type { WebhookEvent } from '@gateway/sdk';
import { FAST_ENGINE } from '../../../test/support/payments';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform';
import { startMerchantApp } from './app';

/**
 * The README's first hour: the example shop against the whole platform in this process. A test
 * merchant's session, paid by the documented test payer success@<bank> with OTP 123456 (README
 * "Test mode"), reaches the shop as a payment.completed webhook that @gateway/sdk verified.
 */
describe('examples/merchant-app', () => {
  let t: TestPlatform;
  let app: Awaited<ReturnType<typeof startMerchantApp>>;
  const events: WebhookEvent[] = [];

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
  });
  afterAll(async () => {
    await app?.stop();
    await t?.stop();
  });

  it('creates a session with the SDK and receives its verified payment.completed', async () => {
    const bank = await t.seed.registerBank();
    // The shop's own alias at its bank, where the money goes.
    const shop = await t.seed.claimAlias(bank, { npt_handle: 'example-shop' });
    const merchant = await t.seed.createMerchant({ name: 'Example Shop', mode: 'test' });
    app = await startMerchantApp({
      gatewayUrl: t.platform.restUrl,
      apiKey: merchant.apiKey,
      webhookSecret: merchant.webhookSecret,
      onEvent: (event) => events.push(event),
    });

    const session = await app.checkout('order-1042', 12_500, shop.handle);
    expect(session).toMatchObject({ status: 'PENDING', livemode: false, reference: 'order-1042' });
    // A retried checkout (same order, same Idempotency-Key) is the same session.
    expect((await app.checkout('order-1042', 12_500, shop.handle)).session_id).toBe(session.session_id);
    expect(app.isPaid('order-1042')).toBe(false);

    // The customer pays on the checkout page; its form posts this.
    const paid = await t.rest('POST', `/pay/${session.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: `success@${bank.handle}` }, otp: '123456' },
    });
    expect({ status: paid.status, body: paid.body }).toMatchObject({ status: 200 });

    const deadline = Date.now() + 30_000;
    while (!app.isPaid('order-1042') && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
    const completed = events.find((event) => event.event === 'payment.completed');
    expect(completed).toMatchObject({
      event: 'payment.completed',
      data: { session_id: session.session_id, reference: 'order-1042', amount: 12_500, currency: 'LYD' },
    });
    expect(app.isPaid('order-1042')).toBe(true);
  });

  it('refuses a webhook the gateway did not sign', async () => {
    const forged = JSON.stringify({ id: 'evt_forged', event: 'payment.completed', data: { reference: 'order-9' } });
    const answer = await fetch(app.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
      body: forged,
    });
    expect(answer.status).toBe(401);
    expect(app.isPaid('order-9')).toBe(false);
  });
});
