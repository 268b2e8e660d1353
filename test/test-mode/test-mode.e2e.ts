import { startTestBanks, TEST_OTP, TEST_PAYERS, type TestBanks } from '@gateway/bank-sandbox';
import { createLogger } from '@gateway/kernel';
import { responseSchemaOf } from '@gateway/rest-compat/testing';
import { gql } from '../support/graphql';
import { startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { bearer, eventually, FAST_ENGINE, sessionReaches } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

/**
 * Test mode is a second world (API-CONTRACT "Test mode"): a test merchant's payments, mandates
 * and settlement move money only at test cores, whatever alias pays. The live banks here are
 * cores written from the spec alone (minimal cores), so "nothing moved" is read from cores that
 * are not ours: their balances and every request they got.
 */
describe('test mode: a test key never moves real money', () => {
  let t: TestPlatform;
  let oasis: MinimalBank;
  let atlas: MinimalBank;
  let amina: MinimalCustomer;
  let layla: MinimalCustomer;
  let receiver: TestWebhookReceiver;
  let testMerchant: { merchantId: string; apiKey: string };
  let liveMerchant: { merchantId: string; apiKey: string };
  /** The built-in test bank's ledger, read from the same database the platform's test banks write. */
  let ledger: TestBanks;

  const liveBalances = () => [oasis.core.balance(amina.iban), atlas.core.balance(layla.iban)];
  const liveCalls = () => oasis.core.calls.length + atlas.core.calls.length;
  const createSession = async (apiKey: string, destination: string, amount: number) => {
    const answer = await t.rest('POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: {
        amount,
        currency: 'LYD',
        destination: { type: 'alias', value: destination },
        description: 'Test-mode order',
        webhook_url: receiver.url,
      },
    });
    expect(answer.status).toBe(201);
    return answer.body as { session_id: string; livemode: boolean };
  };
  const authorize = (sessionId: string, payer: string, otp: string) =>
    t.rest('POST', `/pay/${sessionId}/authorize`, { body: { payer: { type: 'alias', value: payer }, otp } });

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    oasis = await startMinimalBank(t);
    atlas = await startMinimalBank(t);
    amina = await oasis.customer({ balance: 500_000 });
    layla = await atlas.customer({ balance: 0 });
    receiver = await startTestReceiver();
    testMerchant = await t.seed.createMerchant({ name: 'Test-mode Shop', mode: 'test' });
    liveMerchant = await t.seed.createMerchant({ name: 'Live Shop', mode: 'live' });
    ledger = await startTestBanks({ db: t.platform.db, logger: createLogger('test', 'silent') });
    for (const bank of [oasis, atlas]) ledger.core(bank);
  });
  afterAll(async () => {
    await ledger?.stop();
    await receiver?.stop();
    await oasis?.core.stop();
    await atlas?.core.stop();
    await t?.stop();
  });

  it("a test session paid by a real customer's alias moves nothing at any live core and completes at the test bank; a live one moves real money", async () => {
    const before = liveBalances();
    const callsBefore = liveCalls();
    const session = await createSession(testMerchant.apiKey, layla.alias, 100_000);
    expect(session.livemode).toBe(false);
    // The real customer's own OTP means nothing in the test world: the test bank knows 123456.
    expect((await authorize(session.session_id, amina.alias, amina.otp)).body.error.code).toBe('OTP_INVALID');
    expect((await authorize(session.session_id, amina.alias, TEST_OTP)).status).toBe(200);
    const completed = await sessionReaches(t, testMerchant.apiKey, session.session_id, 'COMPLETED');
    expect(completed).toMatchObject({ livemode: false, settlement_type: 'rail' });
    expect(liveBalances()).toEqual(before);
    expect(liveCalls()).toBe(callsBefore);
    // The money moved in the test world only: the test bank's copies of the two accounts.
    expect(await ledger.balance(oasis.handle, amina.iban)).toBe(100_000_000 - 100_000);
    expect(await ledger.balance(atlas.handle, layla.iban)).toBe(100_000_000 + 100_000);
    const webhook = await receiver.waitFor(
      (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === session.session_id,
      'payment.completed',
    );
    expect(JSON.parse(webhook.body)).toMatchObject({ livemode: false, data: { livemode: false } });
    const deliveries = (await t.rest('GET', '/webhooks/deliveries?limit=100', { headers: bearer(testMerchant.apiKey) }))
      .body.deliveries as Array<{
      event_id: string;
      livemode: boolean;
    }>;
    expect(deliveries.find((delivery) => delivery.event_id === webhook.envelope.id)?.livemode).toBe(false);

    // The same payment with a live key: the live cores move it, and say so.
    const live = await createSession(liveMerchant.apiKey, layla.alias, 100_000);
    expect(live.livemode).toBe(true);
    expect((await authorize(live.session_id, amina.alias, amina.otp)).status).toBe(200);
    expect(
      await sessionReaches(t, liveMerchant.apiKey, live.session_id, 'SETTLEMENT_PENDING').catch(() => null),
    ).toBeDefined();
    expect(liveBalances()).toEqual([before[0]! - 100_000, before[1]! + 100_000]);
  });

  it('a credential of one world never sees an object of the other (404)', async () => {
    const test = await createSession(testMerchant.apiKey, layla.alias, 1_000);
    const live = await createSession(liveMerchant.apiKey, layla.alias, 1_000);
    expect(
      (await t.rest('GET', `/payments/sessions/${test.session_id}`, { headers: bearer(liveMerchant.apiKey) })).status,
    ).toBe(404);
    expect(
      (await t.rest('GET', `/payments/sessions/${live.session_id}`, { headers: bearer(testMerchant.apiKey) })).status,
    ).toBe(404);
    const listed = (await t.rest('GET', '/payments/sessions?limit=100', { headers: bearer(testMerchant.apiKey) })).body
      .sessions as Array<{ livemode: boolean }>;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((session) => session.livemode === false)).toBe(true);
  });

  it('wrong OTPs tried in test mode never lock the customer out live (the OTP guard counts each world apart)', async () => {
    const omar = await oasis.customer({ balance: 50_000 });
    // Five distinct refused OTPs lock a customer for 15 minutes; here all five are in the test world (two a session, so none fails).
    let guess = 0;
    for (const tries of [2, 2, 1]) {
      const session = await createSession(testMerchant.apiKey, layla.alias, 1_000);
      for (let i = 0; i < tries; i += 1)
        expect((await authorize(session.session_id, omar.alias, `00000${guess++}`)).body.error.code).toBe(
          'OTP_INVALID',
        );
    }
    const test = await createSession(testMerchant.apiKey, layla.alias, 1_000);
    expect((await authorize(test.session_id, omar.alias, TEST_OTP)).body.error.code).toBe('RATE_LIMITED');
    const live = await createSession(liveMerchant.apiKey, layla.alias, 1_000);
    expect((await authorize(live.session_id, omar.alias, omar.otp)).status).toBe(200);
  });

  it('test payers resolve in the test world only; live resolution never returns them', async () => {
    const live = await createSession(liveMerchant.apiKey, layla.alias, 1_000);
    const refused = await authorize(live.session_id, `success@${oasis.handle}`, TEST_OTP);
    expect([refused.status, refused.body.error.code]).toEqual([404, 'ALIAS_NOT_FOUND']);
    const asDestination = await t.rest('POST', '/payments/sessions', {
      headers: bearer(liveMerchant.apiKey),
      body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: `success@${atlas.handle}` } },
    });
    expect([asDestination.status, asDestination.body.error.code]).toEqual([404, 'ALIAS_NOT_FOUND']);
    // A test merchant may be paid to a test payer too: both sides in the test bank.
    expect((await createSession(testMerchant.apiKey, `success@${atlas.handle}`, 1_000)).livemode).toBe(false);
  });

  describe('each test payer gives its documented outcome (REST)', () => {
    const pay = async (name: string, amount = 2_000) => {
      const session = await createSession(testMerchant.apiKey, layla.alias, amount);
      const answer = await authorize(session.session_id, `${name}@${oasis.handle}`, TEST_OTP);
      return { id: session.session_id, answer };
    };

    it('success: completes', async () => {
      const { id, answer } = await pay('success');
      expect(answer.status).toBe(200);
      await sessionReaches(t, testMerchant.apiKey, id, 'COMPLETED');
    });

    it('wrong-otp: every OTP is refused', async () => {
      const { answer } = await pay('wrong-otp');
      expect([answer.status, answer.body.error.code]).toEqual([401, 'OTP_INVALID']);
    });

    it('insufficient: the debit is refused, the session FAILS with INSUFFICIENT_FUNDS', async () => {
      const { id, answer } = await pay('insufficient');
      expect(answer.body.error.code).toBe('INSUFFICIENT_FUNDS');
      expect((await sessionReaches(t, testMerchant.apiKey, id, 'FAILED')).failure_code).toBe('INSUFFICIENT_FUNDS');
    });

    it('timeout: the first debit is never answered; the retry finds it booked; debited once', async () => {
      const { id } = await pay('timeout', 3_000);
      await sessionReaches(t, testMerchant.apiKey, id, 'COMPLETED', 30_000);
      const debits = (await ledger.transactions(oasis.handle)).filter(
        (line) => line.reference === id && line.operation === 'DEBIT',
      );
      expect(debits).toHaveLength(1);
    });

    it('unknown: every debit answer is a 500 after booking; the statement shows the booking, the money is given back, the session FAILS', async () => {
      const { id } = await pay('unknown', 4_000);
      expect((await sessionReaches(t, testMerchant.apiKey, id, 'FAILED', 30_000)).failure_code).toBe('CBS_ERROR');
      const lines = (await ledger.transactions(oasis.handle)).filter((line) => line.reference.startsWith(id));
      expect(lines.map((line) => [line.operation, line.amount]).sort()).toEqual([
        ['CREDIT', 4_000],
        ['DEBIT', 4_000],
      ]);
    });

    it('credit-refused: the payee bank refuses the credit; the debit is reversed and the session FAILS', async () => {
      const { id } = await pay('credit-refused', 5_000);
      await sessionReaches(t, testMerchant.apiKey, id, 'FAILED', 30_000);
    });

    it('late-confirm: SETTLEMENT_PENDING until the late credit-confirmed, then COMPLETED', async () => {
      const { id, answer } = await pay('late-confirm', 6_000);
      expect(answer.body.status).toBe('SETTLEMENT_PENDING');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(
        (await t.rest('GET', `/payments/sessions/${id}`, { headers: bearer(testMerchant.apiKey) })).body.status,
      ).toBe('SETTLEMENT_PENDING');
      await sessionReaches(t, testMerchant.apiKey, id, 'COMPLETED', 40_000);
    });
  });

  it('test payers through GraphQL: every documented payer ends as over REST', async () => {
    const AUTHORIZE = gql<
      { authorizeCheckout: { status: string } },
      { sessionId: string; input: { payer: { type: string; value: string }; otp: string } }
    >(
      `mutation AuthorizeCheckout($sessionId: ID!, $input: AuthorizeCheckoutInput!) { authorizeCheckout(sessionId: $sessionId, input: $input) { status } }`,
    );
    const SESSION = gql<
      { paymentSession: { status: string; failureCode: string | null; livemode: boolean } },
      { id: string }
    >(`query Session($id: ID!) { paymentSession(id: $id) { status failureCode livemode } }`);
    // The answer to the authorization (an error code, or none) and where the session ends.
    const expected: Record<string, { refusal: string | null; status: string; failureCode: string | null }> = {
      success: { refusal: null, status: 'COMPLETED', failureCode: null },
      'wrong-otp': { refusal: 'OTP_INVALID', status: 'PENDING', failureCode: null },
      insufficient: { refusal: 'INSUFFICIENT_FUNDS', status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' },
      timeout: { refusal: null, status: 'COMPLETED', failureCode: null },
      unknown: { refusal: 'CBS_ERROR', status: 'FAILED', failureCode: 'CBS_ERROR' },
      'credit-refused': { refusal: 'any', status: 'FAILED', failureCode: 'any' },
      'late-confirm': { refusal: null, status: 'COMPLETED', failureCode: null },
    };
    expect(TEST_PAYERS.map((payer) => payer.name).sort()).toEqual(Object.keys(expected).sort());
    await Promise.all(
      TEST_PAYERS.map(async (payer) => {
        const want = expected[payer.name]!;
        const session = await createSession(testMerchant.apiKey, layla.alias, 1_500);
        const variables = {
          sessionId: session.session_id,
          input: { payer: { type: 'alias', value: `${payer.name}@${oasis.handle}` }, otp: TEST_OTP },
        };
        // Only a refused OTP is certain in the answer; the rest may still be running when the answer's wait ends (PROCESSING).
        const authorize = async () => {
          const answer = await fetch(t.platform.graphqlUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: AUTHORIZE, variables }),
          });
          return (
            ((await answer.json()) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions
              ?.code ?? null
          );
        };
        // FAST_ENGINE gives a core call 600 ms: on a busy machine the OTP check itself can time out
        // (CBS_TIMEOUT, nothing moved, the session stays PENDING), and the customer pays again.
        let code = await authorize();
        for (let again = 0; code === 'CBS_TIMEOUT' && again < 3; again += 1) code = await authorize();
        if (want.refusal === 'OTP_INVALID' || want.refusal === null)
          expect([payer.name, code]).toEqual([payer.name, want.refusal]);
        else if (want.refusal !== 'any') expect([null, want.refusal]).toContain(code);
        const ended = await eventually(
          async () => {
            const { paymentSession } = await t.execute(
              SESSION,
              { id: session.session_id },
              bearer(testMerchant.apiKey),
            );
            return paymentSession.status === want.status ? paymentSession : undefined;
          },
          `${payer.name}: session ${session.session_id} to reach ${want.status}`,
          40_000,
        );
        expect(ended.livemode).toBe(false);
        if (want.failureCode !== 'any') expect([payer.name, ended.failureCode]).toEqual([payer.name, want.failureCode]);
      }),
    );
  });

  it('a live settlement cycle has positions from live payments only; a test cycle nets the test ones at test cores', async () => {
    // Leave nothing of earlier tests unsettled, then one live and one test cross-bank payment.
    await t.rest('POST', '/settlement/cycles', { headers: { 'x-service-admin-key': t.adminKey } });
    await t.rest('POST', '/settlement/cycles', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { mode: 'test' },
    });
    const live = await createSession(liveMerchant.apiKey, layla.alias, 7_000);
    await authorize(live.session_id, amina.alias, amina.otp);
    const test = await createSession(testMerchant.apiKey, layla.alias, 9_000);
    await authorize(test.session_id, `success@${oasis.handle}`, TEST_OTP);
    await sessionReaches(t, testMerchant.apiKey, test.session_id, 'COMPLETED');
    // The live payment's obligation exists once its credit is booked (confirmed or not).
    await eventually(
      async () =>
        (await t.platform.db.knex('payments.interbank_obligations').where({ session_id: live.session_id })).length
          ? true
          : undefined,
      'live obligation',
    );

    const admin = { 'x-service-admin-key': t.adminKey };
    const liveCycle = (await t.rest('POST', '/settlement/cycles', { headers: admin })).body;
    expect(liveCycle.livemode).toBe(true);
    const net = (bank: string, cycle: { positions: Array<{ bank_handle: string; net_amount: number }> }) =>
      cycle.positions.find((p) => p.bank_handle === bank)?.net_amount;
    expect([net(oasis.handle, liveCycle), net(atlas.handle, liveCycle)]).toEqual([-7_000, 7_000]);

    const testCycle = (await t.rest('POST', '/settlement/cycles', { headers: admin, body: { mode: 'test' } })).body;
    expect(testCycle.livemode).toBe(false);
    expect([net(oasis.handle, testCycle), net(atlas.handle, testCycle)]).toEqual([-9_000, 9_000]);
    await eventually(
      async () =>
        (await t.rest('GET', `/settlement/cycles/${testCycle.cycle_id}`, { headers: admin })).body.status === 'SETTLED'
          ? true
          : undefined,
      'test cycle settled',
    );
    // The live cores never saw the test cycle's positions (they see the live cycle's, and the live payment's own calls).
    const references = [...oasis.core.calls, ...atlas.core.calls].map((call) => String(call.body?.reference ?? ''));
    expect(references.some((reference) => reference.startsWith(liveCycle.cycle_id))).toBe(true);
    expect(
      references.some((reference) => reference.startsWith(testCycle.cycle_id) || reference === test.session_id),
    ).toBe(false);
    expect(await ledger.transactions(atlas.handle)).toEqual(
      expect.arrayContaining([expect.objectContaining({ reference: `${testCycle.cycle_id}:${atlas.handle}:LYD` })]),
    );
  });

  it('a test mandate with its clock advanced charges the test bank only', async () => {
    const shop = await t.seed.createMerchant({ name: 'Test Subscriptions', mode: 'test', settlement_iban: layla.iban });
    const mandate = (
      await t.rest('POST', '/recurring/mandates', {
        headers: bearer(shop.apiKey),
        body: {
          customer_alias: amina.alias,
          amount: 4_000,
          currency: 'LYD',
          interval: 'monthly',
          start_date: new Date().toISOString().slice(0, 10),
        },
      })
    ).body;
    expect(mandate.livemode).toBe(false);
    expect(
      (await t.rest('POST', `/recurring/mandates/${mandate.mandate_id}/confirm`, { body: { otp: TEST_OTP } })).body
        .status,
    ).toBe('ACTIVE');
    const before = liveBalances();
    const charge = async (reference: string) =>
      (
        await t.rest('POST', `/recurring/mandates/${mandate.mandate_id}/charge`, {
          headers: bearer(shop.apiKey),
          body: { amount: 4_000, reference },
        })
      ).body;
    const first = await charge('month-1');
    expect(first).toMatchObject({ livemode: false });
    const advanced = await t.rest('POST', `/recurring/mandates/${mandate.mandate_id}/test-clock/advance`, {
      headers: bearer(shop.apiKey),
      body: { days: 31 },
    });
    expect(advanced.status).toBe(200);
    expect(
      responseSchemaOf('POST', '/recurring/mandates/{mandate_id}/test-clock/advance').safeParse(advanced.body).error,
    ).toBeUndefined();
    const second = await charge('month-2');
    expect(second).toMatchObject({ livemode: false });
    await eventually(async () => {
      const charges = (
        await t.rest('GET', `/recurring/mandates/${mandate.mandate_id}/charges`, { headers: bearer(shop.apiKey) })
      ).body.charges as Array<{ status: string }>;
      return charges.length === 2 && charges.every((c) => c.status === 'COMPLETED') ? true : undefined;
    }, 'both test charges completed');
    expect(liveBalances()).toEqual(before);
    // The live cores may still hear of the earlier live payment (its unconfirmed credit is sent again), never of a test charge.
    const references = [...oasis.core.calls, ...atlas.core.calls]
      .slice(0)
      .map((call) => String(call.body?.reference ?? ''));
    expect(references.filter((reference) => reference === first.charge_id || reference === second.charge_id)).toEqual(
      [],
    );
    const debits = (await ledger.transactions(oasis.handle, amina.iban)).filter(
      (line) => line.reference === first.charge_id || line.reference === second.charge_id,
    );
    expect(debits.map((line) => [line.operation, line.amount])).toEqual([
      ['DEBIT', 4_000],
      ['DEBIT', 4_000],
    ]);
  });
});
