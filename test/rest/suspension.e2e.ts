import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { approveConsent, createConsent } from '../support/consent-flow';
import { gql } from '../support/graphql';
import { OB_REDIRECT, openBankingSeeds, type OpenBankingSeeds } from '../support/open-banking';
import { bearer, FAST_ENGINE, sessionReaches, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe } from '../support/subscriptions';

const CURRENT_MERCHANT = gql<{ currentMerchant: { id: string } }>('query { currentMerchant { id } }');
const BANK = gql<{ bank: { contactEmail: string } }, { handle: string }>(
  'query($handle: String!) { bank(handle: $handle) { contactEmail } }',
);
const TPP = gql<{ tpp: { name: string } }, { id: string }>('query($id: ID!) { tpp(id: $id) { name } }');
const SUSPEND_MERCHANT = gql<{ suspendMerchant: { id: string; status: string } }, { id: string }>(
  'mutation($id: ID!) { suspendMerchant(id: $id) { id status } }',
);

/** Payments' bank routing cache here: far longer than any wait below, so only the bank.* event can end it. */
const ROUTING_KEPT_MS = 60_000;
/** Long enough for the outbox relay to deliver a bank.* event. */
const EVENT_WAIT_MS = 1_000;

/**
 * Operator controls (API-CONTRACT): suspension of a merchant, a bank and a TPP through REST,
 * refusing their credentials at once with the contract's codes on REST and GraphQL, refusing new
 * work routed to a suspended bank, and restoring everything on resume. Payments keeps bank
 * routing for a minute here: new work is refused within a second only because the suspension's
 * bank.suspended event drops the cached routing (the production default, a second, merely bounds
 * it when the bus is away).
 */
describe('suspending and resuming participants', () => {
  let t: TestPlatform;
  let base: string;
  let admin: Record<string, string>;
  let ob: OpenBankingSeeds;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let payer: Customer;
  let payee: Customer;

  beforeAll(async () => {
    t = await startTestPlatform({
      paymentsEngine: { ...FAST_ENGINE, bankRoutingCacheMs: ROUTING_KEPT_MS },
    });
    base = t.platform.restUrl;
    admin = { 'x-service-admin-key': t.adminKey };
    ob = await openBankingSeeds(t);
    [alpha, beta] = [await ob.bank(), await ob.bank()];
    [payer, payee] = [await alpha.customer(), await beta.customer()];
  });
  afterAll(async () => {
    for (const bank of [alpha, beta]) await bank?.sandbox.stop();
    await t.stop();
  });

  const post = (path: string, headers: Record<string, string> = admin, body?: unknown) =>
    call(base, 'POST', path, { headers, body });
  const newSession = (apiKey: string, to: Customer) =>
    call(base, 'POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: { amount: 1_500, currency: 'LYD', destination: { type: 'alias', value: to.alias } },
    });
  const authorize = (sessionId: string, by: Customer) =>
    call(base, 'POST', `/pay/${sessionId}/authorize`, {
      body: { payer: { type: 'alias', value: by.alias }, otp: by.otp },
    });
  const audited = (target: string) =>
    t.platform.db
      .knex('audit.entries')
      .where({ target })
      .whereIn(
        'action',
        ['merchant', 'bank', 'tpp'].flatMap((what) => [`${what}.suspended`, `${what}.resumed`]),
      )
      .orderBy('at', 'asc')
      .select('action', 'actor_kind', 'actor_name', 'changes');
  const graphqlCode = async (
    response: Promise<{ status: number; errors: Array<{ extensions?: { code?: string } }> }>,
  ) => {
    const { status, errors } = await response;
    return { status, code: errors[0]?.extensions?.code };
  };
  const expectRecord = (answer: Answer, method: 'POST', path: string, status: string) => {
    expect(answer.status).toBe(200);
    expect(responseSchemaOf(method, path).safeParse(answer.body).error).toBeUndefined();
    expect(answer.body.status).toBe(status);
  };

  it('a merchant: its key and dashboard session answer 403 MERCHANT_SUSPENDED at once on REST and GraphQL, its open session cannot be paid; resume restores both; idempotent and audited once each way', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Suspended Shop' });
    const open = await newSession(merchant.apiKey, payee);
    expect(open.status).toBe(201);
    const signIn = await fetch(`${base}/dashboard/session`, {
      method: 'POST',
      headers: { origin: base, ...bearer(merchant.apiKey) },
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(cookie).toMatch(/^gateway_dashboard=mds_/);
    const byCookie = () =>
      call(base, 'POST', '/graphql', {
        headers: { cookie, origin: base },
        body: { query: '{ currentMerchant { id } }' },
      });

    // Operators only.
    expectError(await post(`/merchants/${merchant.merchantId}/suspend`, bearer(merchant.apiKey)), 403, 'FORBIDDEN');
    expectError(await post('/merchants/mer_unknown/suspend'), 404, 'MERCHANT_NOT_FOUND');
    expectError(await post('/merchants/mer_unknown/resume'), 404, 'MERCHANT_NOT_FOUND');

    // A reason must say something, briefly: refused, naming the field, before anything changes.
    for (const reason of ['   ', 'x'.repeat(501)]) {
      const refused = await post(`/merchants/${merchant.merchantId}/suspend`, admin, { reason });
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.error.detail).toMatch(/^reason: /);
    }
    expect((await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers: admin })).body.status).toBe(
      'ACTIVE',
    );

    const suspended = await post(`/merchants/${merchant.merchantId}/suspend`, admin, {
      reason: ' Chargeback ratio above 1% (case 4411) ',
    });
    expectRecord(suspended, 'POST', '/merchants/{id}/suspend', 'SUSPENDED');
    expect(suspended.body.merchant_id).toBe(merchant.merchantId);

    expectError(
      await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers: bearer(merchant.apiKey) }),
      403,
      'MERCHANT_SUSPENDED',
    );
    expectError(await newSession(merchant.apiKey, payee), 403, 'MERCHANT_SUSPENDED');
    expect(await graphqlCode(t.executeExpectingErrors(CURRENT_MERCHANT, {}, bearer(merchant.apiKey)))).toEqual({
      status: 403,
      code: 'MERCHANT_SUSPENDED',
    });
    const cookieRefused = await byCookie();
    expect({ status: cookieRefused.status, code: cookieRefused.body.errors?.[0]?.extensions?.code }).toEqual({
      status: 403,
      code: 'MERCHANT_SUSPENDED',
    });
    // Its open session: refused before the payer's bank is asked for the OTP; still PENDING.
    const verifies = alpha.sandbox.requestCounts().byOperation.verify;
    expectError(await authorize(open.body.session_id, payer), 403, 'MERCHANT_SUSPENDED');
    expect(alpha.sandbox.requestCounts().byOperation.verify).toBe(verifies);
    const pending = await call(base, 'GET', `/payments/sessions/${open.body.session_id}`, { headers: admin });
    expect(pending.body.status).toBe('PENDING');

    // Again: the record as it is, no second entry.
    expectRecord(
      await post(`/merchants/${merchant.merchantId}/suspend`),
      'POST',
      '/merchants/{id}/suspend',
      'SUSPENDED',
    );
    // GraphQL for operators answers the same record.
    expect(await t.execute(SUSPEND_MERCHANT, { id: merchant.merchantId }, admin)).toEqual({
      suspendMerchant: { id: merchant.merchantId, status: 'SUSPENDED' },
    });

    expectRecord(await post(`/merchants/${merchant.merchantId}/resume`), 'POST', '/merchants/{id}/resume', 'ACTIVE');
    expectRecord(await post(`/merchants/${merchant.merchantId}/resume`), 'POST', '/merchants/{id}/resume', 'ACTIVE');
    expect(
      (await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers: bearer(merchant.apiKey) })).status,
    ).toBe(200);
    expect(await t.execute(CURRENT_MERCHANT, {}, bearer(merchant.apiKey))).toEqual({
      currentMerchant: { id: merchant.merchantId },
    });
    expect((await byCookie()).body).toEqual({ data: { currentMerchant: { id: merchant.merchantId } } });
    const paid = await authorize(open.body.session_id, payer);
    expect(paid.status).toBe(200);

    expect(await audited(merchant.merchantId)).toEqual([
      {
        action: 'merchant.suspended',
        actor_kind: 'admin',
        actor_name: 'ADMIN_KEY',
        changes: {
          status: { from: 'ACTIVE', to: 'SUSPENDED' },
          reason: { to: 'Chargeback ratio above 1% (case 4411)' },
        },
      },
      {
        action: 'merchant.resumed',
        actor_kind: 'admin',
        actor_name: 'ADMIN_KEY',
        changes: { status: { from: 'SUSPENDED', to: 'ACTIVE' } },
      },
    ]);
  });

  it('a bank: its key answers 403 BANK_SUSPENDED at once; new sessions, payments and consents to or from it get 422 BANK_NOT_PARTICIPATING within a second; resume restores them', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Bank Suspension Shop' });
    const tpp = await t.seed.registerTpp({ redirect_uris: [OB_REDIRECT] });
    // Routing of beta is cached by this session's creation, for a minute: the event has to drop it.
    const toBeta = await newSession(merchant.apiKey, payee);
    expect(toBeta.status).toBe(201);
    const toAlpha = await newSession(merchant.apiKey, payer);
    expect(toAlpha.status).toBe(201);

    expectError(await post(`/banks/${beta.handle}/suspend`, { 'x-service-bank-key': beta.bankKey }), 403, 'FORBIDDEN');
    expectError(await post('/banks/nosuchbank/suspend'), 404, 'BANK_NOT_REGISTERED');
    const suspendedAt = Date.now();
    const suspended = await post(`/banks/${beta.handle}/suspend`);
    expectRecord(suspended, 'POST', '/banks/{handle}/suspend', 'SUSPENDED');
    expect(suspended.body).toMatchObject({ bank_handle: beta.handle, contact_email: `ops@${beta.handle}.ly` });

    const bankKey = { 'x-service-bank-key': beta.bankKey };
    expectError(await call(base, 'GET', `/banks/${beta.handle}`, { headers: bankKey }), 403, 'BANK_SUSPENDED');
    expect(await graphqlCode(t.executeExpectingErrors(BANK, { handle: beta.handle }, bankKey))).toEqual({
      status: 403,
      code: 'BANK_SUSPENDED',
    });
    expectError(
      await call(base, 'POST', '/v1/identity/claim', {
        headers: bankKey,
        body: { npt_handle: 'late.claim', iban: payee.iban, customer_display_name: 'Late', bank_customer_ref: 'x' },
      }),
      403,
      'BANK_SUSPENDED',
    );
    // Its internal key still authenticates its core's callbacks (movements in flight finish).
    const callback = await call(base, 'POST', '/service/callbacks/v1/payment/credit-confirmed', {
      headers: { 'x-service-internal-key': beta.internalKey },
      body: {
        payment_reference: 'ops_unknown',
        session_id: 'ops_unknown',
        creditor_iban: payee.iban,
        amount: 1,
        currency: 'LYD',
        rrn: '1',
      },
    });
    expectError(callback, 404, 'SESSION_NOT_FOUND');

    // New work to it: refused as soon as the bank.suspended event has reached payments.
    let refusedAfterMs = -1;
    for (;;) {
      const attempt = await newSession(merchant.apiKey, payee);
      if (attempt.status !== 201) {
        expectError(attempt, 422, 'BANK_NOT_PARTICIPATING');
        refusedAfterMs = Date.now() - suspendedAt;
        break;
      }
      if (Date.now() - suspendedAt > 5_000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refusedAfterMs).toBeGreaterThanOrEqual(0);
    expect(refusedAfterMs).toBeLessThan(2_000);
    // The payee's side of an open session, and the payer's side of another.
    expectError(await authorize(toBeta.body.session_id, payer), 422, 'BANK_NOT_PARTICIPATING');
    expectError(await authorize(toAlpha.body.session_id, payee), 422, 'BANK_NOT_PARTICIPATING');
    // A consent at it.
    const consent = await call(base, 'POST', '/ob/consents', {
      headers: bearer(tpp.tppAccessToken),
      body: {
        bank_handle: beta.handle,
        scopes: ['accounts:read'],
        redirect_uri: OB_REDIRECT,
        state: 'st',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        expiry_days: 30,
      },
    });
    expectError(consent, 422, 'BANK_NOT_PARTICIPATING');

    expectRecord(await post(`/banks/${beta.handle}/suspend`), 'POST', '/banks/{handle}/suspend', 'SUSPENDED');
    expectRecord(await post(`/banks/${beta.handle}/resume`), 'POST', '/banks/{handle}/resume', 'ACTIVE');
    // A refusal is never cached: new work is taken at once.
    expect((await call(base, 'GET', `/banks/${beta.handle}`, { headers: bankKey })).status).toBe(200);
    expect((await newSession(merchant.apiKey, payee)).status).toBe(201);
    expect((await authorize(toBeta.body.session_id, payer)).status).toBe(200);
    expect(
      (await audited(beta.handle)).map((entry: { action: string; actor_name: string }) => [
        entry.action,
        entry.actor_name,
      ]),
    ).toEqual([
      ['bank.suspended', 'ADMIN_KEY'],
      ['bank.resumed', 'ADMIN_KEY'],
    ]);
  });

  it("a TPP: its tpk_ token, its consents' access and refresh tokens and a code not yet redeemed answer 403 TPP_SUSPENDED at once; customers cannot approve its consents; resume restores all", async () => {
    const tpp = await t.seed.registerTpp({ name: 'Suspended App', redirect_uris: [OB_REDIRECT] });
    const redeemable = await createConsent(t, tpp.tppAccessToken, {
      bank_handle: alpha.handle,
      redirect_uri: OB_REDIRECT,
    });
    const code = (await approveConsent(t, redeemable.consentId, payer)).get('code')!;
    const awaiting = await createConsent(t, tpp.tppAccessToken, {
      bank_handle: alpha.handle,
      redirect_uri: OB_REDIRECT,
    });
    const grant = await ob.grant(tpp.tppAccessToken, alpha.handle, [{ iban: payer.iban, bankHandle: alpha.handle }]);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const token = (fields: Record<string, string>) =>
      call(base, 'POST', '/ob/token', { body: new URLSearchParams(fields).toString(), headers: form });
    const exchange = () =>
      token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: OB_REDIRECT,
        consent_id: redeemable.consentId,
        code_verifier: redeemable.codeVerifier,
      });
    const refresh = () =>
      token({ grant_type: 'refresh_token', refresh_token: grant.tokens.refreshToken, consent_id: grant.consentId });
    const accounts = () => call(base, 'GET', '/ob/accounts', { headers: grant.headers() });

    expectError(await post(`/ob/tpps/${tpp.tppId}/suspend`, bearer(tpp.tppAccessToken)), 403, 'FORBIDDEN');
    expectError(await post('/ob/tpps/tpp_unknown/suspend'), 404, 'TPP_NOT_FOUND');
    const suspended = await post(`/ob/tpps/${tpp.tppId}/suspend`);
    expectRecord(suspended, 'POST', '/ob/tpps/{id}/suspend', 'SUSPENDED');
    expect(suspended.body).toMatchObject({ tpp_id: tpp.tppId, name: 'Suspended App' });

    expectError(
      await call(base, 'GET', `/ob/consents/${awaiting.consentId}`, { headers: bearer(tpp.tppAccessToken) }),
      403,
      'TPP_SUSPENDED',
    );
    expect(await graphqlCode(t.executeExpectingErrors(TPP, { id: tpp.tppId }, bearer(tpp.tppAccessToken)))).toEqual({
      status: 403,
      code: 'TPP_SUSPENDED',
    });
    expectError(await accounts(), 403, 'TPP_SUSPENDED');
    expectError(await refresh(), 403, 'TPP_SUSPENDED');
    expectError(await exchange(), 403, 'TPP_SUSPENDED');
    expectError(
      await call(base, 'POST', `/ob/auth/${awaiting.consentId}/approve`, {
        body: { customer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      }),
      403,
      'TPP_SUSPENDED',
    );

    expectRecord(await post(`/ob/tpps/${tpp.tppId}/suspend`), 'POST', '/ob/tpps/{id}/suspend', 'SUSPENDED');
    expectRecord(await post(`/ob/tpps/${tpp.tppId}/resume`), 'POST', '/ob/tpps/{id}/resume', 'ACTIVE');

    expect(await t.execute(TPP, { id: tpp.tppId }, bearer(tpp.tppAccessToken))).toEqual({
      tpp: { name: 'Suspended App' },
    });
    expect((await accounts()).status).toBe(200);
    const exchanged = await exchange();
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.access_token).toMatch(/^at_/);
    expect((await refresh()).status).toBe(200);
    expect((await approveConsent(t, awaiting.consentId, payer)).get('code')).toMatch(/^oac_/);
    expect((await audited(tpp.tppId)).map((entry: { action: string }) => entry.action)).toEqual([
      'tpp.suspended',
      'tpp.resumed',
    ]);
  });

  it('a mandate charge from or to a suspended bank is refused (422 BANK_NOT_PARTICIPATING) without charging anything; the period stays chargeable once it is resumed', async () => {
    const shop = await alpha.customer({ balance: 0 });
    const customer = await beta.customer({ balance: 50_000 });
    const merchant = await t.seed.createMerchant({ name: 'Mandate Shop', settlement_iban: shop.iban });
    const created = await call(base, 'POST', '/recurring/mandates', {
      headers: bearer(merchant.apiKey),
      body: {
        customer_alias: customer.alias,
        amount: 5_000,
        currency: 'LYD',
        interval: 'monthly',
        start_date: new Date().toISOString().slice(0, 10),
      },
    });
    expect(created.status).toBe(201);
    const mandateId = created.body.mandate_id as string;
    const confirmed = await call(base, 'POST', `/recurring/mandates/${mandateId}/confirm`, {
      body: { otp: customer.otp },
    });
    expect(confirmed.status).toBe(200);
    const charge = () =>
      call(base, 'POST', `/recurring/mandates/${mandateId}/charge`, {
        headers: bearer(merchant.apiKey),
        body: { amount: 5_000, reference: 'this-month' },
      });
    // Time for the bank.* event to reach payments (the cached routing would otherwise serve a minute).
    const settle = () => new Promise((resolve) => setTimeout(resolve, EVENT_WAIT_MS));

    for (const bank of [alpha, beta]) {
      expect((await post(`/banks/${bank.handle}/suspend`)).status).toBe(200);
      await settle();
      expectError(await charge(), 422, 'BANK_NOT_PARTICIPATING');
      expect((await post(`/banks/${bank.handle}/resume`)).status).toBe(200);
    }
    const charges = () =>
      call(base, 'GET', `/recurring/mandates/${mandateId}/charges`, { headers: bearer(merchant.apiKey) });
    expect((await charges()).body.charges).toEqual([]);
    expect(await customer.bank.balance(customer.iban)).toBe(50_000);

    const charged = await charge();
    expect(charged.status).toBe(201);
    expect((await charges()).body.charges.map((c: { charge_id: string }) => c.charge_id)).toEqual([
      charged.body.charge_id,
    ]);
  });

  it('a refund to a payer at a suspended bank is refused (422 BANK_NOT_PARTICIPATING) and moves nothing; it goes through once the bank is resumed', async () => {
    const shop = await alpha.customer({ balance: 0 });
    const buyer = await beta.customer({ balance: 20_000 });
    const merchant = await t.seed.createMerchant({ name: 'Refund Shop', settlement_iban: shop.iban });
    const session = await newSession(merchant.apiKey, shop);
    expect((await authorize(session.body.session_id, buyer)).status).toBe(200);
    await sessionReaches(t, merchant.apiKey, session.body.session_id, 'COMPLETED');
    const refund = () =>
      call(base, 'POST', `/payments/sessions/${session.body.session_id}/refunds`, {
        headers: bearer(merchant.apiKey),
        body: { reason: 'returned' },
      });

    expect((await post(`/banks/${beta.handle}/suspend`)).status).toBe(200);
    // Time for the bank.suspended event to drop payments' cached routing.
    await new Promise((resolve) => setTimeout(resolve, EVENT_WAIT_MS));
    expectError(await refund(), 422, 'BANK_NOT_PARTICIPATING');
    expect(await buyer.bank.balance(buyer.iban)).toBe(20_000 - 1_500);
    expect((await post(`/banks/${beta.handle}/resume`)).status).toBe(200);
    expect((await refund()).status).toBe(201);
  });

  it("a suspended merchant's and TPP's open subscriptions are closed with 4403 within 5 s", async () => {
    const merchant = await t.seed.createMerchant({ name: 'Subscribed Shop' });
    const tpp = await t.seed.registerTpp({ redirect_uris: [OB_REDIRECT] });
    const session = await newSession(merchant.apiKey, payee);
    const consent = await createConsent(t, tpp.tppAccessToken, {
      bank_handle: alpha.handle,
      redirect_uri: OB_REDIRECT,
    });
    const sockets = [
      subscribe(
        t.platform.graphqlUrl,
        bearer(merchant.apiKey),
        'subscription($id: ID!) { paymentSessionUpdated(id: $id) { id status } }',
        { id: session.body.session_id },
      ),
      subscribe(
        t.platform.graphqlUrl,
        bearer(tpp.tppAccessToken),
        'subscription($id: ID!) { consentUpdated(id: $id) { id status } }',
        { id: consent.consentId },
      ),
    ];
    try {
      await Promise.all(sockets.map((socket) => socket.waitForMessages(1, 'the current state')));
      expect((await post(`/merchants/${merchant.merchantId}/suspend`)).status).toBe(200);
      expect((await post(`/ob/tpps/${tpp.tppId}/suspend`)).status).toBe(200);
      const suspendedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(sockets.map((socket) => socket.ended)),
        new Promise((resolve) => (timer = setTimeout(resolve, 6_000))),
      ]);
      clearTimeout(timer);
      expect(Date.now() - suspendedAt).toBeLessThan(5_000);
      expect(sockets.map((socket) => [socket.closeCode, socket.closeReason])).toEqual([
        [4403, 'credential owner suspended (MERCHANT_SUSPENDED)'],
        [4403, 'credential owner suspended (TPP_SUSPENDED)'],
      ]);
    } finally {
      for (const socket of sockets) await socket.dispose();
    }
  });
});
