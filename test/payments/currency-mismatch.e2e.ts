import { call, expectError } from '@gateway/rest-compat/testing';
import { startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import {
  bearer,
  FAST_ENGINE,
  sessionReaches,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Issue 47, finding 3: a currency the accounts are not held in is refused when it can be told,
 * before anything is written or debited (422 CURRENCY_MISMATCH naming both currencies), never a
 * 502 from the core after the customer acted. The payee's account at creation (sessions and
 * mandates), the payer's (and again the payee's) before the debit; a core that cannot say in time
 * refuses nothing, and a core's own currency refusal reads as CURRENCY_MISMATCH.
 */
describe('currency checked at creation and before the debit', () => {
  let t: TestPlatform;
  let base: string;
  let atlas: PaymentBank;
  let mini: MinimalBank;
  let layla: Customer;
  let merchant: { merchantId: string; apiKey: string };

  const createSession = (payee: { alias: string } | { iban: string }, currency: string, headers = {}) =>
    call(base, 'POST', '/payments/sessions', {
      headers: { ...bearer(merchant.apiKey), ...headers },
      body: {
        amount: 1_000,
        currency,
        destination: 'alias' in payee ? { type: 'alias', value: payee.alias } : { type: 'iban', value: payee.iban },
      },
    });
  const created = async (payee: { alias: string }, currency: string) => {
    const answer = await createSession(payee, currency);
    expect(answer.status).toBe(201);
    return answer.body.session_id as string;
  };
  const authorize = (id: string, payer: MinimalCustomer) =>
    call(base, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
  const status = async (id: string) =>
    (await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) })).body;
  const debitsOf = (reference: string) =>
    mini.core.calls.filter((c) => c.path === '/accounts/debit' && c.body?.reference === reference);
  const count = async (table: string) =>
    Number((await t.platform.db.knex(`payments.${table}`).count({ n: '*' }))[0]!.n);
  /** The payee's (or payer's) core answers its account without a currency, or with a 503, `times` times. */
  const coreCannotSay = (iban: string, times: number, how: 'no-currency' | '503' = '503') =>
    mini.core.fail(
      ...Array.from({ length: times }, () =>
        how === '503'
          ? { path: `/accounts/${iban}`, kind: 'status' as const, status: 503 }
          : { path: `/accounts/${iban}`, kind: 'status' as const, status: 200, body: JSON.stringify({ balance: 1 }) },
      ),
    );

  beforeAll(async () => {
    // "Unknown" is never kept, so each check below asks the core again.
    t = await startTestPlatform({ paymentsEngine: { ...FAST_ENGINE, accountCurrencyUnknownMs: 0 } });
    base = t.platform.restUrl;
    atlas = await startPaymentBank(t);
    mini = await startMinimalBank(t);
    layla = await atlas.customer({ balance: 0 });
    const shop = await atlas.customer({ balance: 0, currency: 'USD' });
    merchant = await t.seed.createMerchant({ name: 'Currency Shop', settlement_iban: shop.iban });
  });
  afterEach(() => mini.core.recover());
  afterAll(async () => {
    await atlas.sandbox.stop();
    await mini.core.stop();
    await t.stop();
  });

  describe('sessions', () => {
    it('a USD session to layla, an LYD account, is 422 CURRENCY_MISMATCH at creation, naming both currencies; nothing is written', async () => {
      const before = [await count('payment_sessions'), await count('outbox')];
      const key = { 'idempotency-key': `usd-to-lyd-${Date.now()}` };
      const refused = await createSession(layla, 'USD', key);
      expectError(refused, 422, 'CURRENCY_MISMATCH');
      expect(refused.body.error.detail).toBe(`session currency USD, payee account ${layla.alias} is in LYD`);
      const byIban = await createSession({ iban: layla.iban }, 'EUR');
      expectError(byIban, 422, 'CURRENCY_MISMATCH');
      expect(byIban.body.error.detail).toBe(`session currency EUR, payee account ${layla.iban} is in LYD`);
      expect([await count('payment_sessions'), await count('outbox')]).toEqual(before);
      // The refused request kept nothing, not even its Idempotency-Key: the corrected one is created.
      expect((await createSession(layla, 'LYD', key)).status).toBe(201);
    });

    it("a payee's core that cannot say at creation refuses nothing; the authorization asks again and refuses before any debit, the session staying PENDING", async () => {
      const payee = await mini.customer({ balance: 0 });
      const payer = await mini.customer({ balance: 10_000, currency: 'USD' });
      coreCannotSay(payee.iban, 2);
      const id = await created(payee, 'USD');
      mini.core.recover();
      coreCannotSay(payee.iban, 1, 'no-currency');
      await created(payee, 'USD');
      mini.core.recover();

      const refused = await authorize(id, payer);
      expectError(refused, 422, 'CURRENCY_MISMATCH');
      expect(refused.body.error.detail).toBe(`session currency USD, payee account ${payee.alias} is in LYD`);
      expect(debitsOf(id)).toEqual([]);
      expect(mini.core.balance(payer.iban)).toBe(10_000);
      expect((await status(id)).status).toBe('PENDING');
    });

    it("a payer's account in another currency is 422 CURRENCY_MISMATCH at authorization: no debit reaches the core, and the session stays payable from another account", async () => {
      const payee = await mini.customer({ balance: 0 });
      const usd = await mini.customer({ balance: 10_000, currency: 'USD' });
      const id = await created(payee, 'LYD');
      const refused = await authorize(id, usd);
      expectError(refused, 422, 'CURRENCY_MISMATCH');
      expect(refused.body.error.detail).toBe(`session currency LYD, payer account ${usd.alias} is in USD`);
      expect(debitsOf(id)).toEqual([]);
      expect(mini.core.entries(usd.iban)).toEqual([]);
      expect(await status(id)).toMatchObject({ status: 'PENDING', failure_code: null });

      const lyd = await mini.customer({ balance: 10_000 });
      const paid = await authorize(id, lyd);
      expect(paid.status).toBe(200);
      await sessionReaches(t, merchant.apiKey, id, 'COMPLETED');
      expect([mini.core.balance(lyd.iban), mini.core.balance(payee.iban), mini.core.balance(usd.iban)]).toEqual([
        9_000, 1_000, 10_000,
      ]);
    });

    it("when no check can tell, the core's currency refusal of the debit is 422 CURRENCY_MISMATCH, never a 502; nothing moved", async () => {
      const payee = await mini.customer({ balance: 0 });
      const usd = await mini.customer({ balance: 10_000, currency: 'USD' });
      const id = await created(payee, 'LYD');
      // Before the claim and before the debit: the payer's core answers without a currency.
      coreCannotSay(usd.iban, 2, 'no-currency');
      const refused = await authorize(id, usd);
      expectError(refused, 422, 'CURRENCY_MISMATCH');
      expect(debitsOf(id)).toHaveLength(1);
      expect(mini.core.entries(usd.iban)).toEqual([]);
      expect(await status(id)).toMatchObject({ status: 'FAILED', failure_code: 'CURRENCY_MISMATCH' });
    });
  });

  describe('mandates', () => {
    const createMandate = (customer: { alias: string }, currency: string) =>
      call(base, 'POST', '/recurring/mandates', {
        headers: bearer(merchant.apiKey),
        body: {
          customer_alias: customer.alias,
          amount: 5_000,
          currency,
          interval: 'monthly',
          start_date: new Date().toISOString().slice(0, 10),
        },
      });
    const charge = (id: string, reference: string) =>
      call(base, 'POST', `/recurring/mandates/${id}/charge`, {
        headers: bearer(merchant.apiKey),
        body: { amount: 1_000, reference },
      });

    it("a mandate in another currency than the customer's account or the settlement_iban is 422 CURRENCY_MISMATCH at creation; nothing is written", async () => {
      const before = await count('mandates');
      const usdForLayla = await createMandate(layla, 'USD');
      expectError(usdForLayla, 422, 'CURRENCY_MISMATCH');
      expect(usdForLayla.body.error.detail).toBe(`mandate currency USD, payer account ${layla.alias} is in LYD`);
      // The merchant's settlement_iban, where charges are paid, is in USD.
      const lydToUsdShop = await createMandate(layla, 'LYD');
      expectError(lydToUsdShop, 422, 'CURRENCY_MISMATCH');
      expect(lydToUsdShop.body.error.detail).toMatch(
        /^mandate currency LYD, payee account LY\w+ \(the merchant's settlement_iban\) is in USD$/,
      );
      expect(await count('mandates')).toBe(before);
    });

    /** An ACTIVE USD mandate of an LYD customer whose core could not say its currency when it was created. */
    const activeUsdMandate = async () => {
      const customer = await mini.customer({ balance: 50_000 });
      coreCannotSay(customer.iban, 2);
      const mandate = await createMandate(customer, 'USD');
      expect(mandate.status).toBe(201);
      mini.core.recover();
      const id = mandate.body.mandate_id as string;
      expect(
        (await call(base, 'POST', `/recurring/mandates/${id}/confirm`, { body: { otp: customer.otp } })).status,
      ).toBe(200);
      return { id, customer };
    };

    it('a charge from an account in another currency is 422 CURRENCY_MISMATCH before it is written; nothing is debited', async () => {
      const { id, customer } = await activeUsdMandate();
      const refused = await charge(id, 'first');
      expectError(refused, 422, 'CURRENCY_MISMATCH');
      expect(refused.body.error.detail).toBe(`charge currency USD, payer account ${customer.alias} is in LYD`);
      expect(await t.platform.db.knex('payments.mandate_charges').where({ mandate_id: id })).toEqual([]);
      expect(mini.core.calls.filter((c) => c.path === '/accounts/debit' && c.body?.iban === customer.iban)).toEqual([]);
    });

    it("a charge started without knowing (the core could not say before it was written) is FAILED by the engine's pre-debit step, as a payment order would be: nothing is sent", async () => {
      const { id, customer } = await activeUsdMandate();
      coreCannotSay(customer.iban, 2);
      const failed = await charge(id, 'second');
      expect(failed.status).toBe(201);
      expect(failed.body).toMatchObject({ status: 'FAILED', failure_code: 'CURRENCY_MISMATCH' });
      expect(debitsOf(failed.body.charge_id)).toEqual([]);
      expect(mini.core.balance(customer.iban)).toBe(50_000);
    });
  });
});
