import { outcomeNeverKnown, startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { bearer, eventually, SHORT_DEADLINES_ENGINE, sessionEvents, sessionReaches } from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Payments through bank cores written from the spec alone (minimal JSON answers, their own
 * refusal shapes, no credit confirmations): every payment ends, and no money is kept or lost.
 */
describe('payments with bank cores written from the spec alone', () => {
  let t: TestPlatform;
  let alpha: MinimalBank;
  let beta: MinimalBank;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: SHORT_DEADLINES_ENGINE });
    alpha = await startMinimalBank(t);
    beta = await startMinimalBank(t);
    merchant = await t.seed.createMerchant();
  });
  const extraBanks: MinimalBank[] = [];
  const track = (bank: MinimalBank) => (extraBanks.push(bank), bank);
  afterAll(async () => {
    for (const bank of [alpha, beta, ...extraBanks]) await bank.core.stop();
    await t.stop();
  });

  const create = async (payee: { iban: string }, amount = 2_500): Promise<string> => {
    const answer = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount, currency: 'LYD', destination: { type: 'iban', value: payee.iban } },
    });
    expect(answer.status).toBe(201);
    return answer.body.session_id;
  };
  const authorize = (id: string, payer: MinimalCustomer) =>
    t.rest('POST', `/pay/${id}/authorize`, { body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp } });
  const kinds = async (id: string) => (await sessionEvents(t, id)).map((event) => `${event.kind} ${event.data.status}`);
  const attention = async () =>
    (await t.rest('GET', '/admin/attention?limit=100', { headers: { 'x-service-admin-key': t.adminKey } })).body
      .movements as Array<Record<string, any>>;
  const gauge = async () => {
    const text = await (await fetch(`${t.platform.subgraphUrls.payments!.replace(/\/graphql$/, '')}/metrics`)).text();
    return Number(/^payments_movements_needing_attention(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1]);
  };

  it('same bank: a spec-only debit answer is booked; COMPLETED, one debit and one credit, balances add up', async () => {
    const payer = await alpha.customer({ balance: 10_000 });
    const payee = await alpha.customer({ balance: 0 });
    const id = await create(payee, 2_500);
    const answer = await authorize(id, payer);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('COMPLETED');
    expect(alpha.core.balance(payer.iban)).toBe(7_500);
    expect(alpha.core.balance(payee.iban)).toBe(2_500);
    const debit = alpha.core.calls.find((call) => call.path === '/accounts/debit' && call.body?.reference === id)!;
    // Strict in what it sends: the spec's fields and headers only.
    expect(Object.keys(debit.body!).sort()).toEqual(['amount', 'currency', 'description', 'iban', 'reference']);
    // One request id from the payer's REST call to every core call it caused.
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    const caused = alpha.core.calls.filter(
      (call) => call.body?.reference === id || call.body?.customer_ref === payer.customerRef,
    );
    expect(caused.map((call) => call.headers['x-request-id'])).toEqual(
      caused.map(() => answer.headers.get('x-request-id')),
    );
  });

  it('cross bank with a creditor core that never confirms: the credit is sent again, then the session completes on the evidence', async () => {
    const payer = await alpha.customer({ balance: 10_000 });
    const payee = await beta.customer({ balance: 0 });
    const id = await create(payee, 4_000);
    expect((await authorize(id, payer)).body.status).toMatch(/PROCESSING|SETTLEMENT_PENDING/);
    await sessionReaches(t, merchant.apiKey, id, 'COMPLETED', 15_000);
    const credits = beta.core.calls.filter((call) => call.path === '/accounts/credit' && call.body?.reference === id);
    expect(credits.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(credits[0]!.body!).sort()).toEqual(['amount', 'currency', 'description', 'iban', 'reference']);
    expect(beta.core.balance(payee.iban)).toBe(4_000);
    expect(alpha.core.balance(payer.iban)).toBe(6_000);
    expect(await kinds(id)).toEqual([
      'payment.initiated PENDING',
      'payment.processing PROCESSING',
      'payment.processing SETTLEMENT_PENDING',
      'payment.completed COMPLETED',
    ]);
    // A confirmation that comes after all is the one the engine waited for: kept with its RRN, nothing moves again.
    const confirmation = {
      payment_reference: id,
      session_id: id,
      creditor_iban: payee.iban,
      amount: 4_000,
      currency: 'LYD',
      rrn: 'RRN-LATE-1',
    };
    const late = await t.rest('POST', '/service/callbacks/v1/payment/credit-confirmed', {
      headers: { 'x-service-internal-key': beta.internalKey },
      body: confirmation,
    });
    expect([late.status, late.body]).toEqual([
      200,
      { payment_reference: id, session_id: id, status: 'COMPLETED', duplicate: false },
    ]);
    const again = await t.rest('POST', '/service/callbacks/v1/payment/credit-confirmed', {
      headers: { 'x-service-internal-key': beta.internalKey },
      body: confirmation,
    });
    expect(again.body.duplicate).toBe(true);
    expect(await t.platform.db.knex('payments.payment_executions').where({ movement_id: id }).first()).toMatchObject({
      step: 'done',
      rrn: 'RRN-LATE-1',
    });
    expect((await kinds(id)).filter((kind) => kind.startsWith('payment.completed'))).toHaveLength(1);
  });

  it("a cross-bank payment over the payer bank's net debit cap is refused before any movement: neither core is asked to debit or credit", async () => {
    const [payerBank, payeeBank] = [track(await startMinimalBank(t)), track(await startMinimalBank(t))];
    const payer = await payerBank.customer({ balance: 10_000 });
    const payee = await payeeBank.customer({ balance: 0 });
    const capped = await t.rest('PUT', `/banks/${payerBank.handle}/net-debit-caps/LYD`, {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { net_debit_cap: 2_000 },
    });
    expect(capped.status).toBe(200);
    const id = await create(payee, 2_500);
    const refused = await authorize(id, payer);
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'NET_DEBIT_CAP_EXCEEDED']);
    const moved = [...payerBank.core.calls, ...payeeBank.core.calls].filter(
      (call) => (call.path === '/accounts/debit' || call.path === '/accounts/credit') && call.body?.reference === id,
    );
    expect(moved).toEqual([]);
    expect([payerBank.core.balance(payer.iban), payeeBank.core.balance(payee.iban)]).toEqual([10_000, 0]);
    expect((await t.rest('GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) })).body.status).toBe(
      'PENDING',
    );
  });

  it('a 422 {"error":"INSUFFICIENT_FUNDS"} fails the session with INSUFFICIENT_FUNDS and moves nothing', async () => {
    const payer = await alpha.customer({ balance: 1_000 });
    const payee = await alpha.customer({ balance: 0 });
    const id = await create(payee, 5_000);
    const answer = await authorize(id, payer);
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('INSUFFICIENT_FUNDS');
    expect((await sessionReaches(t, merchant.apiKey, id, 'FAILED')).failure_code).toBe('INSUFFICIENT_FUNDS');
    expect(alpha.core.balance(payer.iban)).toBe(1_000);
    expect(alpha.core.entries(payer.iban)).toEqual([]);
  });

  it('a core that answers 500 twice then 200 books the debit once', async () => {
    const payer = await alpha.customer({ balance: 10_000 });
    const payee = await alpha.customer({ balance: 0 });
    const id = await create(payee, 1_000);
    alpha.core.fail(
      { path: '/accounts/debit', kind: 'status', status: 500 },
      { path: '/accounts/debit', kind: 'status', status: 500 },
    );
    expect((await authorize(id, payer)).body.status).toBe('COMPLETED');
    expect(alpha.core.entries(payer.iban).map((entry) => entry.amount)).toEqual([-1_000]);
    expect(alpha.core.balance(payer.iban) + alpha.core.balance(payee.iban)).toBe(10_000);
  });

  describe('a core that answers a replayed reference with 409 DUPLICATE_REFERENCE', () => {
    let gamma: MinimalBank;
    beforeAll(async () => {
      gamma = track(await startMinimalBank(t, { replay: 'duplicate' }));
    });

    it('booked, answer lost, replay refused as a duplicate: counted as booked, the payment completes', async () => {
      const payer = await gamma.customer({ balance: 10_000 });
      const payee = await gamma.customer({ balance: 0 });
      const id = await create(payee, 3_000);
      gamma.core.fail({ path: '/accounts/debit', kind: 'book-then-status', status: 503 });
      expect((await authorize(id, payer)).body.status).toBe('COMPLETED');
      expect(gamma.core.balance(payer.iban)).toBe(7_000);
      expect(gamma.core.balance(payee.iban)).toBe(3_000);
    });

    it('booked, no answer in time: the payment is abandoned and the replay (a duplicate) proves the debit, so it is given back', async () => {
      const payer = await gamma.customer({ balance: 10_000 });
      const payee = await gamma.customer({ balance: 0 });
      const id = await create(payee, 2_000);
      // Every attempt of the authorization's call gets no answer (each retry is the duplicate the core recognises).
      gamma.core.fail(
        ...Array.from({ length: SHORT_DEADLINES_ENGINE.coreAttempts! }, () => ({
          path: '/accounts/debit',
          kind: 'hang' as const,
        })),
      );
      expect((await authorize(id, payer)).body.error.code).toBe('CBS_TIMEOUT');
      expect((await sessionReaches(t, merchant.apiKey, id, 'FAILED')).failure_code).toBe('CBS_TIMEOUT');
      await eventually(async () => (gamma.core.balance(payer.iban) === 10_000 ? true : undefined), 'the reversal');
      expect(gamma.core.entries(payer.iban).map((entry) => [entry.amount, entry.reference])).toEqual([
        [-2_000, id],
        [2_000, `${id}:reversal`],
      ]);
      expect(gamma.core.balance(payee.iban)).toBe(0);
    });
  });

  it('a credit refused on a replay is reconciled against the statement: booked, so never reversed', async () => {
    const payer = await alpha.customer({ balance: 10_000 });
    const payee = await alpha.customer({ balance: 0 });
    const id = await create(payee, 1_500);
    alpha.core.fail(
      { path: '/accounts/credit', kind: 'book-then-status', status: 500 },
      { path: '/accounts/credit', kind: 'status', status: 400, body: '{"code":"REFERENCE_ALREADY_USED"}' },
      { path: '/accounts/credit', kind: 'status', status: 400, body: '{"code":"REFERENCE_ALREADY_USED"}' },
    );
    await authorize(id, payer);
    await sessionReaches(t, merchant.apiKey, id, 'COMPLETED');
    expect(alpha.core.balance(payee.iban)).toBe(1_500);
    expect(alpha.core.balance(payer.iban)).toBe(8_500);
    expect(alpha.core.entries(payer.iban).filter((entry) => entry.reference === `${id}:reversal`)).toEqual([]);
  });

  it('answers that stay unusable: FAILED within the deadline (CBS_OUTCOME_UNKNOWN), the movement needs attention; an operator refund gives the money back once', async () => {
    const delta = track(await startMinimalBank(t));
    const payer = await delta.customer({ balance: 10_000 });
    const payee = await delta.customer({ balance: 0 });
    const id = await create(payee, 2_200);
    // Booked, then only redirects and HTML for the debit, and no statement: nothing can be established.
    delta.core.fail(
      { path: '/accounts/debit', kind: 'book-then-status', status: 302, body: '<html>moved</html>' },
      ...outcomeNeverKnown('/accounts/debit', payer.iban),
    );
    await authorize(id, payer);
    const failed = await sessionReaches(t, merchant.apiKey, id, 'FAILED', 15_000);
    expect(failed.failure_code).toBe('CBS_OUTCOME_UNKNOWN');
    expect(await kinds(id)).toEqual([
      'payment.initiated PENDING',
      'payment.processing PROCESSING',
      'payment.failed FAILED',
    ]);
    const [movement] = (await attention()).filter((m) => m.session_id === id);
    expect(movement).toMatchObject({
      session_id: id,
      step: 'resolve_debit',
      amount: 2_200,
      currency: 'LYD',
      debtor_iban: payer.iban,
      session_status: 'FAILED',
      resolution: null,
    });
    expect(await gauge()).toBeGreaterThanOrEqual(1);
    // The replays stop: no call loop after the answer.
    const calls = delta.core.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(delta.core.calls.length).toBe(calls);

    const resolved = await t.rest('POST', `/admin/attention/${id}/resolve`, {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { action: 'REFUND_PAYER', note: 'core team confirms the debit was booked' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      session_id: id,
      step: 'reverse',
      resolution: 'REFUND_PAYER: core team confirms the debit was booked',
    });
    await eventually(async () => (delta.core.balance(payer.iban) === 10_000 ? true : undefined), 'the refund');
    expect((await attention()).filter((m) => m.session_id === id)).toEqual([]);
    expect((await sessionReaches(t, merchant.apiKey, id, 'FAILED')).failure_code).toBe('CBS_OUTCOME_UNKNOWN');
    expect(delta.core.balance(payee.iban)).toBe(0);
    const again = await t.rest('POST', `/admin/attention/${id}/resolve`, {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { action: 'CLOSE', note: 'twice' },
    });
    expect([again.status, again.body.error.code]).toEqual([404, 'MOVEMENT_NOT_FOUND']);
    // The decision is in the audit log once (the refused second one left nothing).
    const audited = await t.rest('GET', `/admin/audit?action=attention.resolved&target=${id}`, {
      headers: { 'x-service-admin-key': t.adminKey },
    });
    expect(audited.body.entries).toEqual([
      expect.objectContaining({
        actor: { kind: 'admin', id: null, name: 'ADMIN_KEY' },
        changes: {
          step: { from: 'attention', to: 'reverse' },
          resolution: { from: null, to: 'REFUND_PAYER: core team confirms the debit was booked' },
        },
        request_id: resolved.headers.get('x-request-id'),
      }),
    ]);
  });

  it('a reversal refused for good: the merchant gets FAILED, the movement needs attention (no retry loop)', async () => {
    const payer = await alpha.customer({ balance: 10_000 });
    // An IBAN routed to alpha by its institution code, with no account behind it at the core.
    const id = await create({ iban: lyIban(alpha.institutionCode, 999_999_001) }, 900);
    alpha.core.fail(
      { path: '/accounts/credit', kind: 'status', status: 404, body: '{"error":"ACCOUNT_NOT_FOUND"}' },
      { path: '/accounts/credit', kind: 'status', status: 403, body: '{"error":"ACCOUNT_CLOSED"}' },
    );
    expect((await authorize(id, payer)).status).toBe(502);
    const failed = await sessionReaches(t, merchant.apiKey, id, 'FAILED');
    expect(failed.failure_code).toBe('CBS_ERROR');
    const [movement] = (await attention()).filter((m) => m.session_id === id);
    expect(movement).toMatchObject({ step: 'reverse', session_status: 'FAILED' });
    expect(movement!.reason).toMatch(/reversal was refused/);
    expect(alpha.core.balance(payer.iban)).toBe(9_100);
  });

  it('the attention list and its resolution are for the admin key only', async () => {
    expect((await t.rest('GET', '/admin/attention', { headers: bearer(merchant.apiKey) })).status).toBe(403);
    expect(
      (
        await t.rest('POST', '/admin/attention/ops_x/resolve', {
          headers: { 'x-service-admin-key': t.adminKey },
          body: { action: 'SHRUG', note: 'x' },
        })
      ).status,
    ).toBe(400);
  });
});
