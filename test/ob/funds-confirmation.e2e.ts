import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { startTestBanks, TEST_OTP, type TestBanks } from '@gateway/bank-sandbox';
import { createBankCoreClient, type BankCoreClient } from '@gateway/bank-core-client';
import { createLogger } from '@gateway/kernel';
import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { OB_REDIRECT, openBankingSeeds, type OpenBankingSeeds } from '../support/open-banking';
import { bearer, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const quiet = createLogger('test', 'silent');
const DAY_MS = 86_400_000;
const inDays = (days: number): string => new Date(Date.now() + days * DAY_MS).toISOString();
const CBPII_WORDS = 'Answer yes or no when asked whether your account holds an amount; never your balance';

/**
 * Confirmation of funds (CBPII, issue 51) end to end against the sandbox bank: a funds-confirmation
 * consent created by the TPP, approved by the customer at the consent page's endpoint, its code
 * exchanged at /ob/token, then questions answered yes or no from the core's live balance.
 */
describe('Open Banking confirmation of funds', () => {
  let t: TestPlatform;
  let base: string;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let core: BankCoreClient;
  let alice: Customer;
  let bob: Customer;
  let tpp: { tppId: string; tppAccessToken: string };

  const newConsent = async (
    tppToken: string,
    account: { type: 'iban' | 'alias'; value: string },
    patch: Record<string, unknown> = {},
  ): Promise<{ answer: Answer; consentId: string; verifier: string }> => {
    const verifier = randomBytes(32).toString('base64url');
    const answer = await call(base, 'POST', '/ob/funds-confirmation-consents', {
      headers: bearer(tppToken),
      body: {
        bank_handle: bank.handle,
        account,
        expiry: inDays(30),
        redirect_uri: OB_REDIRECT,
        state: 'st-1',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ...patch,
      },
    });
    return { answer, consentId: answer.body?.consent_id as string, verifier };
  };
  const approve = (consentId: string, customer: Pick<Customer, 'alias' | 'otp'>) =>
    call(base, 'POST', `/ob/auth/${consentId}/approve`, {
      body: { customer: { type: 'alias', value: customer.alias }, otp: customer.otp },
    });
  const exchange = (consentId: string, redirectTo: string, verifier: string) =>
    call(base, 'POST', '/ob/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: new URL(redirectTo).searchParams.get('code')!,
        redirect_uri: OB_REDIRECT,
        consent_id: consentId,
        code_verifier: verifier,
      }).toString(),
    });
  /** A consent for the customer's IBAN, approved by them, its code exchanged: the data call headers. */
  const granted = async (customer: Customer, tppToken = tpp.tppAccessToken, otp = customer.otp) => {
    const consent = await newConsent(tppToken, { type: 'iban', value: customer.iban });
    expect(consent.answer.status).toBe(201);
    const approved = await approve(consent.consentId, { alias: customer.alias, otp });
    expect(approved.status).toBe(200);
    const token = await exchange(consent.consentId, approved.body.redirect_to, consent.verifier);
    expect(token.status).toBe(200);
    return {
      consentId: consent.consentId,
      token: token.body as { access_token: string; scope: string },
      headers: { authorization: `Bearer ${token.body.access_token}`, 'x-consent-id': consent.consentId },
    };
  };
  const ask = (headers: Record<string, string>, body: Record<string, unknown>) =>
    call(base, 'POST', '/ob/funds-confirmations', {
      headers,
      body: { reference: 'card-auth-1', currency: 'LYD', ...body },
    });

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    core = createBankCoreClient({
      bankHandle: bank.handle,
      baseUrl: bank.sandbox.url,
      internalKey: bank.internalKey,
      production: false,
      logger: quiet,
    });
    alice = await bank.customer({ balance: 50_000 });
    bob = await bank.customer({ balance: 1_000 });
    tpp = await t.seed.registerTpp({ name: 'Card Issuer' });
  });
  afterAll(async () => {
    await bank?.sandbox.stop();
    await t?.stop();
  });

  it('creates a consent, shows the CBPII wording on the consent page, approves, exchanges the code and answers yes or no, never the balance', async () => {
    const consent = await newConsent(tpp.tppAccessToken, { type: 'iban', value: alice.iban });
    expect(consent.answer.status).toBe(201);
    expect(
      responseSchemaOf('POST', '/ob/funds-confirmation-consents').safeParse(consent.answer.body).error,
    ).toBeUndefined();
    expect(consent.answer.body).toMatchObject({
      consent_id: expect.stringMatching(/^con_/),
      status: 'AWAITING_AUTHORISATION',
      consent_url: expect.stringMatching(new RegExp(`/ob/auth/${consent.consentId}$`)),
      account: { type: 'iban', value: alice.iban },
      bank_handle: bank.handle,
    });

    const page = await fetch(`${base}/ob/auth/${consent.consentId}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(CBPII_WORDS);

    const approved = await approve(consent.consentId, alice);
    expect(approved.status).toBe(200);
    const token = await exchange(consent.consentId, approved.body.redirect_to, consent.verifier);
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe('funds_confirmation');
    const headers = { authorization: `Bearer ${token.body.access_token}`, 'x-consent-id': consent.consentId };

    const read = await call(base, 'GET', `/ob/funds-confirmation-consents/${consent.consentId}`, {
      headers: bearer(tpp.tppAccessToken),
    });
    expect(read.status).toBe(200);
    expect(
      responseSchemaOf('GET', '/ob/funds-confirmation-consents/{consent_id}').safeParse(read.body).error,
    ).toBeUndefined();
    expect(read.body).toMatchObject({ status: 'AUTHORISED', authorised_at: expect.any(String) });

    const yes = await ask(headers, { consent_id: consent.consentId, amount: 50_000 });
    expect(yes.status).toBe(200);
    expect(responseSchemaOf('POST', '/ob/funds-confirmations').safeParse(yes.body).error).toBeUndefined();
    expect(yes.body).toEqual({
      funds_confirmation_id: expect.stringMatching(/^fcf_/),
      consent_id: consent.consentId,
      reference: 'card-auth-1',
      funds_available: true,
      created_at: expect.any(String),
    });
    const no = await ask(headers, { consent_id: consent.consentId, amount: 50_001 });
    expect([no.status, no.body.funds_available]).toEqual([200, false]);
    for (const answer of [yes, no]) expect(JSON.stringify(answer.body)).not.toContain('50000');

    // Read live: a debit at the core turns the same question's yes into a no.
    await core.debit({
      iban: alice.iban,
      amount: 1,
      currency: 'LYD',
      reference: `ref_${randomUUID()}`,
      description: 'Coffee',
    });
    expect((await ask(headers, { consent_id: consent.consentId, amount: 50_000 })).body.funds_available).toBe(false);
    expect((await ask(headers, { consent_id: consent.consentId, amount: 49_999 })).body.funds_available).toBe(true);
  });

  it("refuses another currency (422), bad amounts (400) and another consent's id (403)", async () => {
    const grant = await granted(bob);
    expectError(
      await ask(grant.headers, { consent_id: grant.consentId, amount: 10, currency: 'USD' }),
      422,
      'CURRENCY_MISMATCH',
    );
    expectError(await ask(grant.headers, { consent_id: grant.consentId, amount: 0 }), 400, 'VALIDATION_ERROR');
    expectError(await ask(grant.headers, { consent_id: grant.consentId, amount: 1.5 }), 400, 'VALIDATION_ERROR');
    const other = await newConsent(tpp.tppAccessToken, { type: 'iban', value: bob.iban });
    expectError(await ask(grant.headers, { consent_id: other.consentId, amount: 10 }), 403, 'FORBIDDEN');
  });

  it('refuses an account-information token here, and a funds-confirmation token on /ob/accounts (403 SCOPE_INSUFFICIENT)', async () => {
    const ais = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    expectError(await ask(ais.headers(), { consent_id: ais.consentId, amount: 10 }), 403, 'SCOPE_INSUFFICIENT');
    const funds = await granted(bob);
    expectError(await call(base, 'GET', '/ob/accounts', { headers: funds.headers }), 403, 'SCOPE_INSUFFICIENT');
    // Nor is an account-information consent one of this kind.
    expectError(
      await call(base, 'GET', `/ob/funds-confirmation-consents/${ais.consentId}`, {
        headers: bearer(tpp.tppAccessToken),
      }),
      404,
      'CONSENT_NOT_FOUND',
    );
  });

  it('a revoked consent answers no more: DELETE by the TPP, then 401 TOKEN_REVOKED', async () => {
    const grant = await granted(bob);
    expect((await ask(grant.headers, { consent_id: grant.consentId, amount: 1_000 })).body.funds_available).toBe(true);
    const revoked = await call(base, 'DELETE', `/ob/funds-confirmation-consents/${grant.consentId}`, {
      headers: bearer(tpp.tppAccessToken),
    });
    expect(revoked.status).toBe(204);
    expectError(await ask(grant.headers, { consent_id: grant.consentId, amount: 1_000 }), 401, 'TOKEN_REVOKED');
    const read = await call(base, 'GET', `/ob/funds-confirmation-consents/${grant.consentId}`, {
      headers: bearer(tpp.tppAccessToken),
    });
    expect(read.body).toMatchObject({ status: 'REVOKED', revoked_by: 'tpp' });
    const otherTpp = await t.seed.registerTpp({ name: 'Other Issuer' });
    expectError(
      await call(base, 'DELETE', `/ob/funds-confirmation-consents/${grant.consentId}`, {
        headers: bearer(otherTpp.tppAccessToken),
      }),
      404,
      'CONSENT_NOT_FOUND',
    );
  });

  it('refuses at approval a customer who does not hold the account (403 FUNDS_ACCOUNT_NOT_OWNED); its holder, named by alias, may approve', async () => {
    const consent = await newConsent(tpp.tppAccessToken, { type: 'alias', value: alice.alias });
    expect(consent.answer.status).toBe(201);
    expectError(await approve(consent.consentId, bob), 403, 'FUNDS_ACCOUNT_NOT_OWNED');
    const read = await call(base, 'GET', `/ob/funds-confirmation-consents/${consent.consentId}`, {
      headers: bearer(tpp.tppAccessToken),
    });
    expect(read.body).toMatchObject({
      status: 'AWAITING_AUTHORISATION',
      account: { type: 'alias', value: alice.alias },
    });
    expect((await approve(consent.consentId, alice)).status).toBe(200);
  });

  it('refuses an expiry in the past or beyond the bank maximum, and a malformed account (400 VALIDATION_ERROR)', async () => {
    const iban = { type: 'iban' as const, value: alice.iban };
    expectError((await newConsent(tpp.tppAccessToken, iban, { expiry: inDays(-1) })).answer, 400, 'VALIDATION_ERROR');
    expectError((await newConsent(tpp.tppAccessToken, iban, { expiry: inDays(91) })).answer, 400, 'VALIDATION_ERROR');
    expectError((await newConsent(tpp.tppAccessToken, iban, { expiry: '2030-01-01' })).answer, 400, 'VALIDATION_ERROR');
    expectError(
      (await newConsent(tpp.tppAccessToken, { type: 'iban', value: 'LY00NOTANIBAN' })).answer,
      400,
      'VALIDATION_ERROR',
    );
  });

  describe('in the test world', () => {
    let ledger: TestBanks;
    beforeAll(async () => {
      ledger = await startTestBanks({ db: t.platform.db, logger: quiet });
      ledger.core(bank);
    });
    afterAll(async () => {
      await ledger?.stop();
    });

    it("a test TPP's consent is approved with the test OTP and answered from the test bank, never the live core", async () => {
      const testTpp = await t.seed.registerTpp({ name: 'Test Issuer', mode: 'test' });
      const grant = await granted(bob, testTpp.tppAccessToken, TEST_OTP);
      // Bob holds 1 000 at the live core and 100 000 000 at the test bank.
      const yes = await ask(grant.headers, { consent_id: grant.consentId, amount: 100_000_000 });
      expect([yes.status, yes.body.funds_available]).toEqual([200, true]);
      expect(
        (await ask(grant.headers, { consent_id: grant.consentId, amount: 100_000_001 })).body.funds_available,
      ).toBe(false);
    });
  });
});
