import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { startTestBanks, TEST_OTP, type TestBanks } from '@gateway/bank-sandbox';
import { createLogger } from '@gateway/kernel';
import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { startMinimalBank, type MinimalBank } from '../support/minimal-bank';
import { OB_REDIRECT, openBankingSeeds, type OpenBankingSeeds } from '../support/open-banking';
import { bearer, eventually, FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

const DAY_MS = 86_400_000;
const inDays = (days: number): string => new Date(Date.now() + days * DAY_MS).toISOString();

type Limit = { period_type: string; period_alignment: string; amount: number };

/** The spec's error body, and its detail naming what was refused. */
function refused(answer: Answer, status: number, code: string, detail?: RegExp): void {
  expectError(answer, status, code);
  if (detail) expect(answer.body.error.detail).toMatch(detail);
}

/**
 * Variable recurring payments (issue 51) end to end against sandbox banks: a VRP consent created
 * by the TPP, shown and approved at the consent page, its code exchanged at /ob/token, then
 * payments without SCA executed by the payments engine within every limit, refused beyond each,
 * concurrent payments unable to pass a limit together, a failed payment freeing its share,
 * revocation, and funds confirmation on the consent.
 */
describe('Open Banking variable recurring payments', () => {
  let t: TestPlatform;
  let base: string;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let otherBank: PaymentBank;
  let tpp: { tppId: string; tppAccessToken: string };
  let webhooks: TestWebhookReceiver;

  const newConsent = async (
    payer: { handle: string },
    creditor: { type: 'iban' | 'alias'; value: string },
    controls: { maximum?: number; limits?: Limit[]; validFrom?: string; validTo?: string } = {},
    patch: Record<string, unknown> = {},
    tppToken: string = tpp.tppAccessToken,
  ): Promise<{ answer: Answer; consentId: string; verifier: string }> => {
    const verifier = randomBytes(32).toString('base64url');
    const answer = await call(base, 'POST', '/ob/vrp-consents', {
      headers: bearer(tppToken),
      body: {
        bank_handle: payer.handle,
        creditor,
        currency: 'LYD',
        reference: 'Sweeping to savings',
        control_parameters: {
          maximum_individual_amount: controls.maximum ?? 5_000,
          periodic_limits: controls.limits ?? [{ period_type: 'Day', period_alignment: 'Calendar', amount: 8_000 }],
          ...(controls.validFrom ? { valid_from: controls.validFrom } : {}),
          ...(controls.validTo ? { valid_to: controls.validTo } : {}),
        },
        redirect_uri: OB_REDIRECT,
        state: 'st-vrp',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ...patch,
      },
    });
    return { answer, consentId: answer.body?.consent_id as string, verifier };
  };

  /** A VRP consent for `payer`, approved by them, its code exchanged: the consent id and the call headers. */
  const granted = async (
    payer: Pick<Customer, 'alias' | 'otp'> & { bank: { handle: string } },
    creditor: { type: 'iban' | 'alias'; value: string },
    controls: Parameters<typeof newConsent>[2] = {},
    as: { tppToken?: string; otp?: string } = {},
  ) => {
    const consent = await newConsent(payer.bank, creditor, controls, {}, as.tppToken);
    expect(consent.answer.status).toBe(201);
    const approved = await call(base, 'POST', `/ob/auth/${consent.consentId}/approve`, {
      body: { customer: { type: 'alias', value: payer.alias }, otp: as.otp ?? payer.otp },
    });
    expect(approved.status).toBe(200);
    const token = await call(base, 'POST', '/ob/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: new URL(approved.body.redirect_to as string).searchParams.get('code')!,
        redirect_uri: OB_REDIRECT,
        consent_id: consent.consentId,
        code_verifier: consent.verifier,
      }).toString(),
    });
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe('vrp_payments');
    return {
      consentId: consent.consentId,
      headers: { authorization: `Bearer ${token.body.access_token}`, 'x-consent-id': consent.consentId },
    };
  };

  const pay = (
    grant: { consentId: string; headers: Record<string, string> },
    amount: number,
    key: string = randomUUID(),
  ) =>
    call(base, 'POST', '/ob/vrp-payments', {
      headers: { ...grant.headers, 'idempotency-key': key },
      body: { consent_id: grant.consentId, amount, reference: `r-${amount}` },
    });

  const paymentReaches = (headers: Record<string, string>, id: string, status: string) =>
    eventually(async () => {
      const answer = await call(base, 'GET', `/ob/vrp-payments/${id}`, { headers });
      return answer.body?.status === status ? answer.body : undefined;
    }, `VRP payment ${id} ${status}`);

  const usage = async (grant: { consentId: string; headers: Record<string, string> }) => {
    const answer = await call(base, 'GET', `/ob/vrp-consents/${grant.consentId}`, { headers: grant.headers });
    expect(answer.status).toBe(200);
    return answer.body.control_parameters.periodic_limits as Array<Limit & { used: number; remaining: number }>;
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    otherBank = await ob.bank();
    webhooks = await startTestReceiver();
    tpp = await t.seed.registerTpp({ name: 'Sweeper', webhook_url: webhooks.url });
  });
  afterAll(async () => {
    await bank?.sandbox.stop();
    await otherBank?.sandbox.stop();
    await webhooks?.stop();
    await t?.stop();
  });

  it('creates a consent, shows every limit at the consent page, and pays within them; beyond each limit 422 before any core call', async () => {
    const alice = await bank.customer({ balance: 100_000 });
    const bob = await bank.customer({ balance: 0 });
    const consent = await newConsent(
      bank,
      { type: 'iban', value: bob.iban },
      {
        maximum: 5_000,
        limits: [
          { period_type: 'Day', period_alignment: 'Calendar', amount: 8_000 },
          { period_type: 'Month', period_alignment: 'Consent', amount: 20_000 },
        ],
      },
    );
    expect(consent.answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/ob/vrp-consents').safeParse(consent.answer.body).error).toBeUndefined();
    expect(consent.answer.body).toMatchObject({
      status: 'AWAITING_AUTHORISATION',
      creditor: { type: 'iban', value: bob.iban },
      debtor_account_id: null,
      control_parameters: {
        maximum_individual_amount: 5_000,
        periodic_limits: [
          { period_type: 'Day', period_alignment: 'Calendar', amount: 8_000, used: 0, remaining: 8_000 },
          { period_type: 'Month', period_alignment: 'Consent', amount: 20_000, used: 0, remaining: 20_000 },
        ],
      },
    });

    // The consent page says what the customer authorises, in major units with the currency.
    const page = await fetch(`${base}/ob/auth/${consent.consentId}`, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(html).toContain('Allow these payments?');
    expect(html).toContain('At most 5.000 LYD per payment');
    expect(html).toContain('At most 8.000 LYD in total per day');
    expect(html).toContain('At most 20.000 LYD in total per month, counted from the start date');
    expect(html).toContain(bob.iban);

    const grant = await granted(
      alice,
      { type: 'iban', value: bob.iban },
      {
        maximum: 5_000,
        limits: [{ period_type: 'Day', period_alignment: 'Calendar', amount: 8_000 }],
      },
    );
    const first = await pay(grant, 3_000);
    expect(first.status).toBe(201);
    expect(responseSchemaOf('POST', '/ob/vrp-payments').safeParse(first.body).error).toBeUndefined();
    expect(first.body).toMatchObject({
      payment_id: expect.stringMatching(/^vrp_/),
      status: 'PROCESSING',
      amount: 3_000,
    });
    const completed = await paymentReaches(grant.headers, first.body.payment_id, 'COMPLETED');
    // The TPP hears both, as documented (waitFor rejects a body that differs from the OpenAPI webhooks).
    const grantedEvent = await webhooks.waitFor(
      (webhook) =>
        webhook.envelope.event === 'vrp_consent.granted' && webhook.envelope.data.consent_id === grant.consentId,
    );
    expect(grantedEvent.envelope.data).toMatchObject({ status: 'AUTHORISED', scopes: ['vrp_payments'] });
    const done = await webhooks.waitFor(
      (webhook) =>
        webhook.envelope.event === 'vrp_payment.completed' &&
        webhook.envelope.data.payment_id === first.body.payment_id,
    );
    expect(done.envelope.data).toMatchObject({
      status: 'COMPLETED',
      amount: 3_000,
      currency: 'LYD',
      consent_id: grant.consentId,
    });
    expect(completed).toMatchObject({ settlement_type: 'internal', currency: 'LYD' });
    expect(await bank.balance(bob.iban)).toBe(3_000);
    expect(await bank.balance(alice.iban)).toBe(97_000);

    refused(await pay(grant, 5_001), 422, 'VRP_LIMIT_EXCEEDED', /maximum_individual_amount/);
    expect((await pay(grant, 4_000)).status).toBe(201);
    const overDay = await pay(grant, 1_001);
    refused(overDay, 422, 'VRP_LIMIT_EXCEEDED', /Day \(Calendar\).*\(1\.000 LYD remaining\)/);
    expect((await pay(grant, 1_000)).status).toBe(201);
    expect(await usage(grant)).toEqual([
      expect.objectContaining({ period_type: 'Day', amount: 8_000, used: 8_000, remaining: 0 }),
    ]);
    // Nothing of a refused payment reached a core: bob has what the three accepted ones moved.
    await eventually(async () => ((await bank.balance(bob.iban)) === 8_000 ? true : undefined), 'bob credited');
  });

  it('pays a payee at another bank named by alias (the rail), and answers the same payment for the same Idempotency-Key', async () => {
    const alice = await bank.customer({ balance: 50_000 });
    const carol = await otherBank.customer({ balance: 0 });
    const grant = await granted(alice, { type: 'alias', value: carol.alias });
    const key = randomUUID();
    const first = await pay(grant, 2_500, key);
    const again = await pay(grant, 2_500, key);
    expect(first.status).toBe(201);
    expect(again.body.payment_id).toBe(first.body.payment_id);
    refused(
      await call(base, 'POST', '/ob/vrp-payments', {
        headers: { ...grant.headers, 'idempotency-key': key },
        body: { consent_id: grant.consentId, amount: 2_600, reference: 'other' },
      }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    await paymentReaches(grant.headers, first.body.payment_id, 'COMPLETED');
    await eventually(
      async () => ((await otherBank.balance(carol.iban)) === 2_500 ? true : undefined),
      'carol credited',
    );
    expect((await usage(grant))[0]).toMatchObject({ used: 2_500 });
  });

  it('lets payments sent at once pass a limit together never: accepted iff the period total holds (property, concurrent)', async () => {
    const payer = await bank.customer({ balance: 10_000_000 });
    const payee = await bank.customer({ balance: 0 });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_000, max: 6_000 }),
        fc.array(fc.integer({ min: 100, max: 2_500 }), { minLength: 2, maxLength: 7 }),
        async (dayLimit, amounts) => {
          const grant = await granted(
            payer,
            { type: 'iban', value: payee.iban },
            {
              maximum: 2_500,
              limits: [{ period_type: 'Day', period_alignment: 'Calendar', amount: dayLimit }],
            },
          );
          const answers = await Promise.all(amounts.map((amount) => pay(grant, amount)));
          const accepted = amounts.filter((_, index) => answers[index]!.status === 201);
          const total = accepted.reduce((sum, amount) => sum + amount, 0);
          for (const [index, answer] of answers.entries()) {
            if (answer.status === 201) continue;
            refused(answer, 422, 'VRP_LIMIT_EXCEEDED');
            // Refused only if it did not fit beside what was accepted (totals only grow here).
            expect(total + amounts[index]!).toBeGreaterThan(dayLimit);
          }
          expect(total).toBeLessThanOrEqual(dayLimit);
          expect((await usage(grant))[0]).toMatchObject({ used: total, remaining: dayLimit - total });
        },
      ),
      { numRuns: 4 },
    );
  });

  it('a failed payment frees its share of the limit', async () => {
    const poor = await bank.customer({ balance: 1_000 });
    const payee = await bank.customer({ balance: 0 });
    const grant = await granted(
      poor,
      { type: 'iban', value: payee.iban },
      {
        limits: [{ period_type: 'Week', period_alignment: 'Consent', amount: 5_000 }],
      },
    );
    const payment = await pay(grant, 4_000);
    expect(payment.status).toBe(201);
    const failed = await paymentReaches(grant.headers, payment.body.payment_id, 'FAILED');
    expect(failed.failure_code).toBe('INSUFFICIENT_FUNDS');
    await webhooks.waitFor(
      (webhook) =>
        webhook.envelope.event === 'vrp_payment.failed' &&
        webhook.envelope.data.payment_id === payment.body.payment_id &&
        webhook.envelope.data.failure_code === 'INSUFFICIENT_FUNDS',
    );
    expect((await usage(grant))[0]).toMatchObject({ used: 0, remaining: 5_000 });
    expect((await pay(grant, 900)).status).toBe(201);
  });

  it('answers funds confirmation on the consent yes or no, never the balance', async () => {
    const alice = await bank.customer({ balance: 7_000 });
    const bob = await bank.customer({ balance: 0 });
    const grant = await granted(alice, { type: 'iban', value: bob.iban });
    const ask = (amount: number, consentId = grant.consentId) =>
      call(base, 'POST', `/ob/vrp-consents/${consentId}/funds-confirmation`, {
        headers: grant.headers,
        body: { amount },
      });
    const yes = await ask(7_000);
    expect(yes.status).toBe(200);
    expect(yes.body).toEqual({ consent_id: grant.consentId, funds_available: true, created_at: expect.any(String) });
    expect((await ask(7_001)).body.funds_available).toBe(false);
    refused(await ask(0), 400, 'VALIDATION_ERROR', /amount/);
    const other = await newConsent(bank, { type: 'iban', value: bob.iban });
    refused(await ask(1, other.consentId), 403, 'FORBIDDEN');
  });

  it('refuses bad control parameters (400) and a payment outside the validity window (422)', async () => {
    const alice = await bank.customer({ balance: 10_000 });
    const bob = await bank.customer({ balance: 0 });
    const creditor = { type: 'iban' as const, value: bob.iban };
    refused(
      (
        await newConsent(bank, creditor, {
          limits: [{ period_type: 'Fortnight', period_alignment: 'Calendar', amount: 1 }],
        })
      ).answer,
      400,
      'VALIDATION_ERROR',
      /period_alignment.*Fortnight/,
    );
    refused(
      (
        await newConsent(bank, creditor, {
          limits: [{ period_type: 'Quarter', period_alignment: 'Calendar', amount: 1 }],
        })
      ).answer,
      400,
      'VALIDATION_ERROR',
      /period_type/,
    );
    refused(
      (await newConsent(bank, creditor, { validFrom: inDays(3), validTo: inDays(2) })).answer,
      400,
      'VALIDATION_ERROR',
      /valid_to/,
    );
    refused(
      (
        await newConsent(bank, creditor, {
          limits: [{ period_type: 'Day', period_alignment: 'Calendar', amount: 1.5 }],
        })
      ).answer,
      400,
      'VALIDATION_ERROR',
      /amount/,
    );
    const later = await granted(alice, creditor, { validFrom: inDays(1), validTo: inDays(10) });
    refused(await pay(later, 100), 422, 'VRP_OUTSIDE_VALIDITY', /valid from/);
    expect((await usage(later))[0]).toMatchObject({ used: 0 });
  });

  it('stops paying once revoked by the TPP, or by the bank for the customer (401 TOKEN_REVOKED), and another kind of token is refused', async () => {
    const alice = await bank.customer({ balance: 10_000 });
    const bob = await bank.customer({ balance: 0 });
    const byTpp = await granted(alice, { type: 'iban', value: bob.iban });
    expect(
      (await call(base, 'DELETE', `/ob/vrp-consents/${byTpp.consentId}`, { headers: bearer(tpp.tppAccessToken) }))
        .status,
    ).toBe(204);
    refused(await pay(byTpp, 100), 401, 'TOKEN_REVOKED');
    const read = await call(base, 'GET', `/ob/vrp-consents/${byTpp.consentId}`, {
      headers: bearer(tpp.tppAccessToken),
    });
    expect(read.body).toMatchObject({ status: 'REVOKED', revoked_by: 'tpp' });
    await webhooks.waitFor(
      (webhook) =>
        webhook.envelope.event === 'vrp_consent.revoked' && webhook.envelope.data.consent_id === byTpp.consentId,
    );

    const byBank = await granted(alice, { type: 'iban', value: bob.iban });
    const revoked = await call(base, 'POST', `/ob/consents/${byBank.consentId}/revoke`, {
      headers: { 'x-service-bank-key': bank.bankKey },
      body: { revoked_by: 'customer' },
    });
    expect(revoked.status).toBe(200);
    refused(await pay(byBank, 100), 401, 'TOKEN_REVOKED');

    // An account-information token cannot pay VRP, and a VRP consent is not a funds-confirmation one.
    const ais = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    refused(
      await call(base, 'POST', '/ob/vrp-payments', {
        headers: {
          authorization: `Bearer ${ais.tokens.accessToken}`,
          'x-consent-id': ais.consentId,
          'idempotency-key': randomUUID(),
        },
        body: { consent_id: ais.consentId, amount: 100, reference: 'x' },
      }),
      403,
      'SCOPE_INSUFFICIENT',
    );
    refused(
      await call(base, 'GET', `/ob/vrp-consents/${ais.consentId}`, { headers: bearer(tpp.tppAccessToken) }),
      404,
      'CONSENT_NOT_FOUND',
    );
  });
  describe('against a bank core written from the spec alone', () => {
    let minimal: MinimalBank;
    beforeAll(async () => {
      minimal = await startMinimalBank(t);
      await ob.enableOpenBanking(minimal.handle, minimal.bankKey);
    });
    afterAll(async () => {
      await minimal?.core.stop();
    });

    it('pays within the limits and refuses beyond them; confirms funds yes and no (VRP and CBPII)', async () => {
      const payer = { ...(await minimal.customer({ balance: 10_000 })), bank: minimal };
      const payee = await minimal.customer({ balance: 0 });
      const grant = await granted(
        payer,
        { type: 'iban', value: payee.iban },
        {
          maximum: 3_000,
          limits: [{ period_type: 'Day', period_alignment: 'Calendar', amount: 5_000 }],
        },
      );
      const payment = await pay(grant, 3_000);
      expect(payment.status).toBe(201);
      await paymentReaches(grant.headers, payment.body.payment_id, 'COMPLETED');
      expect([minimal.core.balance(payer.iban), minimal.core.balance(payee.iban)]).toEqual([7_000, 3_000]);
      const callsBefore = minimal.core.calls.length;
      refused(await pay(grant, 2_500), 422, 'VRP_LIMIT_EXCEEDED', /Day \(Calendar\).*\(2\.000 LYD remaining\)/);
      // Refused before any core call: nothing was posted to the core.
      expect(minimal.core.calls.slice(callsBefore).filter((call) => call.method === 'POST')).toEqual([]);
      const vrpFunds = await call(base, 'POST', `/ob/vrp-consents/${grant.consentId}/funds-confirmation`, {
        headers: grant.headers,
        body: { amount: 7_000 },
      });
      expect(vrpFunds.body.funds_available).toBe(true);

      // Confirmation of funds (CBPII) on the same core: a consent for the payer's account, yes and no.
      const verifier = randomBytes(32).toString('base64url');
      const consent = await call(base, 'POST', '/ob/funds-confirmation-consents', {
        headers: bearer(tpp.tppAccessToken),
        body: {
          bank_handle: minimal.handle,
          account: { type: 'iban', value: payer.iban },
          expiry: inDays(30),
          redirect_uri: OB_REDIRECT,
          state: 'st-cof',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
        },
      });
      expect(consent.status).toBe(201);
      const consentId = consent.body.consent_id as string;
      const approved = await call(base, 'POST', `/ob/auth/${consentId}/approve`, {
        body: { customer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      });
      expect(approved.status).toBe(200);
      const token = await call(base, 'POST', '/ob/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: new URL(approved.body.redirect_to as string).searchParams.get('code')!,
          redirect_uri: OB_REDIRECT,
          consent_id: consentId,
          code_verifier: verifier,
        }).toString(),
      });
      const headers = { authorization: `Bearer ${token.body.access_token}`, 'x-consent-id': consentId };
      const ask = (amount: number) =>
        call(base, 'POST', '/ob/funds-confirmations', {
          headers,
          body: { consent_id: consentId, reference: 'card-1', amount, currency: 'LYD' },
        });
      expect((await ask(7_000)).body.funds_available).toBe(true);
      expect((await ask(7_001)).body.funds_available).toBe(false);
    });
  });

  describe('in the test world', () => {
    let ledger: TestBanks;
    beforeAll(async () => {
      ledger = await startTestBanks({ db: t.platform.db, logger: createLogger('test', 'silent') });
      ledger.core(bank);
    });
    afterAll(async () => {
      await ledger?.stop();
    });

    it("a test TPP's consent shows the TEST badge, is approved with the test OTP and pays at the test bank, never at the live core", async () => {
      const testTpp = await t.seed.registerTpp({ name: 'Test Sweeper', mode: 'test' });
      const alice = await bank.customer({ balance: 1_000 });
      const bob = await bank.customer({ balance: 0 });
      const consent = await newConsent(bank, { type: 'iban', value: bob.iban }, {}, {}, testTpp.tppAccessToken);
      expect(consent.answer.body.livemode).toBe(false);
      const html = await (
        await fetch(`${base}/ob/auth/${consent.consentId}`, { headers: { accept: 'text/html' } })
      ).text();
      expect(html).toMatch(/TEST/);
      const grant = await granted(
        alice,
        { type: 'iban', value: bob.iban },
        {},
        {
          tppToken: testTpp.tppAccessToken,
          otp: TEST_OTP,
        },
      );
      // Alice holds 1 000 at the live core: a live payment of 4 000 would fail for funds.
      const payment = await pay(grant, 4_000);
      expect(payment.status).toBe(201);
      expect(payment.body.livemode).toBe(false);
      await paymentReaches(grant.headers, payment.body.payment_id, 'COMPLETED');
      expect(await bank.balance(alice.iban)).toBe(1_000);
      expect(await bank.balance(bob.iban)).toBe(0);
      const credited = await ledger.transactions(bank.handle, bob.iban);
      expect(credited).toEqual([expect.objectContaining({ reference: payment.body.payment_id })]);
    });
  });
});
