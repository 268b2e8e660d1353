import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe } from '../support/subscriptions';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

/**
 * Recurring mandates end to end (API-CONTRACT "Mandates"): created by the merchant, confirmed by
 * the customer with the OTP their bank checks, charged once per interval period by the payment
 * engine (same bank and cross bank), cancelled, revoked by the customer's bank; every refusal
 * with its code.
 */
describe('recurring mandates', () => {
  let t: TestPlatform;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let shopAccount: Customer;
  let merchant: { merchantId: string; apiKey: string; webhookSecret: string };
  let receiver: TestWebhookReceiver;

  const rest = (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ) => call(t.platform.restUrl, method, path, options);
  const today = () => new Date().toISOString().slice(0, 10);
  const create = (customer: Customer, patch: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    rest('POST', '/recurring/mandates', {
      headers: { ...bearer(merchant.apiKey), ...headers },
      body: {
        customer_alias: customer.alias,
        amount: 5_000,
        currency: 'LYD',
        interval: 'monthly',
        description: 'Gym membership',
        start_date: today(),
        ...patch,
      },
    });
  const confirm = (id: string, otp: string, headers: Record<string, string> = {}) =>
    rest('POST', `/recurring/mandates/${id}/confirm`, { headers, body: { otp } });
  const charge = (id: string, amount = 5_000, reference = 'nov', headers: Record<string, string> = {}) =>
    rest('POST', `/recurring/mandates/${id}/charge`, {
      headers: { ...bearer(merchant.apiKey), ...headers },
      body: { amount, reference },
    });
  const read = async (id: string) =>
    (await rest('GET', `/recurring/mandates/${id}`, { headers: bearer(merchant.apiKey) })).body;
  const activeMandate = async (customer: Customer, patch: Record<string, unknown> = {}) => {
    const created = await create(customer, patch);
    expect(created.status).toBe(201);
    expect((await confirm(created.body.mandate_id, customer.otp)).status).toBe(200);
    return created.body.mandate_id as string;
  };
  const settled = async (chargeId: string, mandateId: string) =>
    eventually(async () => {
      const list = await rest('GET', `/recurring/mandates/${mandateId}/charges`, { headers: bearer(merchant.apiKey) });
      const found = list.body.charges.find((c: any) => c.charge_id === chargeId);
      return found && found.status !== 'PROCESSING' ? found : undefined;
    }, 'the charge to settle');

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    shopAccount = await alpha.customer({ balance: 0 });
    receiver = await startTestReceiver();
    merchant = await t.seed.createMerchant({
      name: 'Gym & Co',
      settlement_iban: shopAccount.iban,
      webhook_url: receiver.url,
    });
  });
  afterAll(async () => {
    await receiver.stop();
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await t.stop();
  });

  it('creates a mandate PENDING_CONFIRMATION with confirm_url; the same Idempotency-Key answers the same mandate, another body is refused', async () => {
    const customer = await alpha.customer();
    const key = { 'idempotency-key': `mdt-${Date.now()}` };
    const created = await create(customer, {}, key);
    expect(created.status).toBe(201);
    expect(responseSchemaOf('POST', '/recurring/mandates').safeParse(created.body).error).toBeUndefined();
    expect(created.body).toMatchObject({
      mandate_id: expect.stringMatching(/^mdt_/),
      status: 'PENDING_CONFIRMATION',
      customer_alias: customer.alias,
      customer_bank: alpha.handle,
      amount: 5_000,
      currency: 'LYD',
      interval: 'monthly',
      start_date: today(),
      next_charge_date: today(),
      acceptance: null,
      confirmed_at: null,
    });
    expect(created.body.confirm_url).toBe(
      `${t.platform.restUrl.replace('127.0.0.1', 'localhost')}/mandates/${created.body.mandate_id}/confirm`,
    );
    const again = await create(customer, {}, key);
    expect([again.status, again.body.mandate_id]).toEqual([201, created.body.mandate_id]);
    expectError(await create(customer, { amount: 6_000 }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    const listed = await rest('GET', '/recurring/mandates?limit=1', { headers: bearer(merchant.apiKey) });
    expect(listed.body.mandates.map((m: any) => m.mandate_id)).toEqual([created.body.mandate_id]);
    expect(listed.body.pagination).toMatchObject({ has_more: expect.any(Boolean) });
  });

  it('refuses bad input and a merchant without settlement_iban, naming the field; nothing is created', async () => {
    const customer = await alpha.customer();
    for (const [patch, field] of [
      [{ interval: 'daily' }, 'interval'],
      [{ start_date: '2026-02-30' }, 'start_date'],
      [{ amount: -5 }, 'amount'],
      [{ amount: 10.5 }, 'amount'],
      [{ currency: 'GBP' }, 'currency'],
    ] as const) {
      const refused = await create(customer, patch);
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.error.detail).toMatch(new RegExp(`^${field}`));
    }
    expectError(await create({ ...customer, alias: 'nobody.here' }), 404, 'ALIAS_NOT_FOUND');
    const bare = await t.seed.createMerchant({ name: 'No Account Shop' });
    const refused = await rest('POST', '/recurring/mandates', {
      headers: bearer(bare.apiKey),
      body: {
        customer_alias: customer.alias,
        amount: 100,
        currency: 'LYD',
        interval: 'weekly',
        description: 'x',
        start_date: today(),
      },
    });
    expectError(refused, 400, 'VALIDATION_ERROR');
    expect(refused.body.error.detail).toMatch(/^settlement_iban:/);
  });

  it('the customer confirms with the OTP: ACTIVE, acceptance recorded, mandate.activated sent; the same confirmation again answers ACTIVE', async () => {
    const customer = await alpha.customer({ otp: '246810' });
    const id = (await create(customer)).body.mandate_id;
    const confirmed = await confirm(id, '246810', { 'user-agent': 'Mozilla/5.0 (Test)' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ mandate_id: id, status: 'ACTIVE' });
    const record = await read(id);
    expect(record).toMatchObject({
      status: 'ACTIVE',
      confirmed_at: expect.any(String),
      acceptance: { accepted_at: expect.any(String), user_agent: 'Mozilla/5.0 (Test)' },
    });
    expect(record.acceptance.ip_address).toEqual(expect.any(String));
    expect((await confirm(id, '246810')).body).toEqual({ mandate_id: id, status: 'ACTIVE' });
    expectError(await confirm(id, '111111'), 409, 'MANDATE_NOT_PENDING_CONFIRMATION');
    const activated = await receiver.waitFor(
      (w) => w.envelope.event === 'mandate.activated' && w.envelope.data.mandate_id === id,
      'mandate.activated',
    );
    expect(activated.envelope.data).toMatchObject({
      mandate_id: id,
      status: 'ACTIVE',
      merchant_id: merchant.merchantId,
    });
  });

  it('three wrong OTPs FAIL the mandate; it cannot be confirmed or charged afterwards', async () => {
    const customer = await alpha.customer({ otp: '135791' });
    const id = (await create(customer)).body.mandate_id;
    for (const left of ['2 attempts left', '1 attempt left']) {
      const wrong = await confirm(id, '999999');
      expectError(wrong, 401, 'OTP_INVALID');
      expect(wrong.body.error.detail).toContain(left);
    }
    expectError(await confirm(id, '999999'), 401, 'OTP_INVALID');
    expect(await read(id)).toMatchObject({ status: 'FAILED', failed_at: expect.any(String), next_charge_date: null });
    expectError(await confirm(id, '135791'), 409, 'MANDATE_NOT_PENDING_CONFIRMATION');
    expectError(await charge(id), 422, 'MANDATE_NOT_ACTIVE');
  });

  it('charges same bank: COMPLETED at once, money moved; a second charge in the period is refused; a live mandate has no test clock', async () => {
    const customer = await alpha.customer({ balance: 100_000 });
    const id = await activeMandate(customer);
    const before = await alpha.balance(shopAccount.iban);
    const first = await charge(id, 5_000, 'nov');
    expect(first.status).toBe(201);
    expect(
      responseSchemaOf('POST', '/recurring/mandates/{mandate_id}/charge').safeParse(first.body).error,
    ).toBeUndefined();
    expect(first.body).toMatchObject({
      charge_id: expect.stringMatching(/^chg_/),
      mandate_id: id,
      status: 'COMPLETED',
      amount: 5_000,
      reference: 'nov',
      settlement_type: 'internal',
    });
    expect(await alpha.balance(customer.iban)).toBe(95_000);
    expect(await alpha.balance(shopAccount.iban)).toBe(before + 5_000);
    const second = await charge(id, 100, 'nov-again');
    expectError(second, 422, 'MANDATE_LIMIT_EXCEEDED');
    expect(second.body.error.detail).toMatch(/already charged/);
    const nextDate = (await read(id)).next_charge_date;
    expect(nextDate > today()).toBe(true);

    // This merchant is live: its mandate's clock never moves (test clocks move test objects only; test/test-mode charges a test mandate across periods).
    expectError(
      await rest('POST', `/recurring/mandates/${id}/test-clock/advance`, {
        headers: bearer(merchant.apiKey),
        body: { days: 31 },
      }),
      403,
      'FORBIDDEN',
    );
    expect((await read(id)).next_charge_date).toBe(nextDate);
    expect(await alpha.balance(customer.iban)).toBe(95_000);
    const listed = await rest('GET', `/recurring/mandates/${id}/charges`, { headers: bearer(merchant.apiKey) });
    expect(listed.body.charges.map((c: any) => c.reference)).toEqual(['nov']);
    await receiver.waitFor(
      (w) => w.envelope.event === 'mandate.charge.completed' && w.envelope.data.charge_id === first.body.charge_id,
      'mandate.charge.completed',
    );
  });

  it('refuses a charge above the mandate amount, before start_date, and on a cancelled mandate, each with its code', async () => {
    const customer = await alpha.customer();
    const id = await activeMandate(customer);
    expectError(await charge(id, 5_001), 422, 'MANDATE_LIMIT_EXCEEDED');
    const later = await activeMandate(customer, { start_date: '2099-01-01' });
    expectError(await charge(later), 422, 'MANDATE_NOT_STARTED');
    expect((await read(later)).next_charge_date).toBe('2099-01-01');
    const pending = (await create(customer)).body.mandate_id;
    expectError(await charge(pending), 422, 'MANDATE_NOT_ACTIVE');
    const cancelled = await rest('DELETE', `/recurring/mandates/${id}`, { headers: bearer(merchant.apiKey) });
    expect(cancelled.status).toBe(204);
    expect(await read(id)).toMatchObject({ status: 'CANCELLED', revoked_by: 'merchant', next_charge_date: null });
    expect((await rest('DELETE', `/recurring/mandates/${id}`, { headers: bearer(merchant.apiKey) })).status).toBe(204);
    expectError(await charge(id), 422, 'MANDATE_NOT_ACTIVE');
    await receiver.waitFor(
      (w) => w.envelope.event === 'mandate.cancelled' && w.envelope.data.mandate_id === id,
      'mandate.cancelled',
    );
    // Another merchant sees none of it.
    const stranger = await t.seed.createMerchant({ settlement_iban: shopAccount.iban });
    expectError(
      await rest('GET', `/recurring/mandates/${id}`, { headers: bearer(stranger.apiKey) }),
      404,
      'MANDATE_NOT_FOUND',
    );
    expectError(
      await rest('POST', `/recurring/mandates/${later}/charge`, {
        headers: bearer(stranger.apiKey),
        body: { amount: 1, reference: 'x' },
      }),
      404,
      'MANDATE_NOT_FOUND',
    );
  });

  it('two charges racing in one period: exactly one is taken, one debit', async () => {
    const customer = await alpha.customer({ balance: 50_000 });
    const id = await activeMandate(customer);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => charge(id, 1_000, `race-${i}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422, 422, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422))
      expect(refused.body.error.code).toBe('MANDATE_LIMIT_EXCEEDED');
    expect(await alpha.balance(customer.iban)).toBe(49_000);
  });

  it('charges cross bank: PROCESSING until the creditor bank confirms, then COMPLETED with the interbank obligation', async () => {
    const customer = await beta.customer({ balance: 30_000 });
    const id = await activeMandate(customer);
    const answer = await charge(id, 2_500, 'rail');
    expect(answer.status).toBe(201);
    expect(answer.body.settlement_type).toBe('rail');
    const done = await settled(answer.body.charge_id, id);
    expect(done.status).toBe('COMPLETED');
    expect(await beta.balance(customer.iban)).toBe(27_500);
    const obligations = await t.platform.db
      .knex('payments.interbank_obligations')
      .where({ session_id: answer.body.charge_id });
    expect(obligations).toMatchObject([
      { debtor_bank: beta.handle, creditor_bank: alpha.handle, amount: '2500', currency: 'LYD' },
    ]);
  });

  it('a charge the customer cannot pay FAILS (INSUFFICIENT_FUNDS), mandate.charge.failed is sent, and the period may be charged again', async () => {
    const customer = await alpha.customer({ balance: 1_000 });
    const id = await activeMandate(customer);
    const failed = await charge(id, 5_000, 'too-much');
    expect(failed.body).toMatchObject({ status: 'FAILED', failure_code: 'INSUFFICIENT_FUNDS' });
    const event = await receiver.waitFor(
      (w) => w.envelope.event === 'mandate.charge.failed' && w.envelope.data.charge_id === failed.body.charge_id,
      'mandate.charge.failed',
    );
    expect(event.envelope.data).toMatchObject({
      mandate_id: id,
      charge_status: 'FAILED',
      amount: 5_000,
      currency: 'LYD',
      reference: 'too-much',
      failure_code: 'INSUFFICIENT_FUNDS',
    });
    const retried = await charge(id, 800, 'smaller');
    expect(retried.body).toMatchObject({ status: 'COMPLETED' });
  });

  it("the customer's bank revokes a mandate (revoked_by customer); another bank cannot", async () => {
    const customer = await alpha.customer();
    const id = await activeMandate(customer);
    const other = await rest('POST', `/recurring/mandates/${id}/revoke`, {
      headers: { 'x-service-bank-key': beta.bankKey },
      body: { revoked_by: 'bank' },
    });
    expectError(other, 404, 'MANDATE_NOT_FOUND');
    const revoked = await rest('POST', `/recurring/mandates/${id}/revoke`, {
      headers: { 'x-service-bank-key': alpha.bankKey },
      body: { revoked_by: 'customer' },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ mandate_id: id, status: 'CANCELLED', revoked_by: 'customer' });
    expectError(await charge(id), 422, 'MANDATE_NOT_ACTIVE');
  });

  it('GraphQL: mandate { charges customerBank { displayName } } crosses subgraphs; mandateUpdated streams PENDING_CONFIRMATION, ACTIVE, CANCELLED', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const id = (await create(customer)).body.mandate_id;
    const stream = subscribe(
      t.platform.graphqlUrl,
      { authorization: `Bearer ${merchant.apiKey}` },
      'subscription($id: ID!) { mandateUpdated(id: $id) { id status } }',
      { id },
    );
    await stream.waitForMessages(1, 'the current state');
    await confirm(id, customer.otp);
    await charge(id, 1_500, 'gql');
    await rest('DELETE', `/recurring/mandates/${id}`, { headers: bearer(merchant.apiKey) });
    await stream.ended;
    expect(stream.messages.map((m) => m.data?.mandateUpdated?.status)).toEqual([
      'PENDING_CONFIRMATION',
      'ACTIVE',
      'CANCELLED',
    ]);

    const data = await t.execute<{ mandate: any }, { id: string }>(
      'query($id: ID!) { mandate(id: $id) { id status customerBank { handle displayName } charges { edges { node { id status amount reference } } } } }',
      { id },
      bearer(merchant.apiKey),
    );
    expect(data.mandate).toMatchObject({
      id,
      status: 'CANCELLED',
      customerBank: { handle: alpha.handle, displayName: expect.stringMatching(/Pay Bank/) },
    });
    expect(data.mandate.charges.edges.map((e: any) => [e.node.status, e.node.amount, e.node.reference])).toEqual([
      ['COMPLETED', 1_500, 'gql'],
    ]);
  });

  it('webhooks of a mandate arrive in order, numbered by sequence', async () => {
    const customer = await alpha.customer({ balance: 20_000 });
    const id = await activeMandate(customer);
    await charge(id, 1_000, 'seq');
    await rest('DELETE', `/recurring/mandates/${id}`, { headers: bearer(merchant.apiKey) });
    await receiver.waitFor(
      (w) => w.envelope.event === 'mandate.cancelled' && w.envelope.data.mandate_id === id,
      'mandate.cancelled',
    );
    const mine = receiver.received.filter((w) => w.envelope.data.mandate_id === id);
    expect(mine.map((w) => `${(w.envelope as { sequence?: number }).sequence} ${w.envelope.event}`)).toEqual([
      '1 mandate.activated',
      '2 mandate.charge.completed',
      '3 mandate.cancelled',
    ]);
  });
});
