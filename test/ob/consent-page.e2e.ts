import { createHash, randomInt } from 'node:crypto';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import { consentPageToken, createConsent, enableOpenBanking, type CreatedConsent } from '../support/consent-flow';
import { bearer, eventually, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type SeededBank, type TestPlatform } from '../support/platform';

const ISSUER = 'https://gw.example.ly';
const REDIRECT = 'https://tpp.example/callback';
const REDIRECT_WITH_QUERY = 'https://tpp.example/cb?app=budget&lang=en';

/** The customer's side of a consent over REST: rest-compat -> router -> open-banking -> identity, banks and the bank's core. */
describe('consent page: approve and reject (REST)', () => {
  let t: TestPlatform;
  let base: string;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let deadBank: SeededBank;
  let tpp: { tppId: string; tppAccessToken: string };

  const consentAt = (bank: { handle: string }, patch: Record<string, unknown> = {}): Promise<CreatedConsent> =>
    createConsent(t, tpp.tppAccessToken, { bank_handle: bank.handle, redirect_uri: REDIRECT, ...patch });
  const approve = (consentId: string, customer: { type?: string; value: string }, otp: string) =>
    call(base, 'POST', `/ob/auth/${consentId}/approve`, {
      body: { customer: { type: customer.type ?? 'alias', value: customer.value }, otp },
    });
  /** The rejection as the consent page sends it: with the token the page was opened with (none: by the consent id alone). */
  const reject = (consentId: string, pageToken?: string) =>
    call(base, 'POST', `/ob/auth/${consentId}/reject`, pageToken ? { body: { page_token: pageToken } } : {});
  const opened = (consentId: string) => consentPageToken(base, consentId);
  const view = (consentId: string) =>
    call(base, 'GET', `/ob/auth/${consentId}`, { headers: { accept: 'application/json' } });
  const consentRecord = async (consentId: string) =>
    (await call(base, 'GET', `/ob/consents/${consentId}`, { headers: bearer(tpp.tppAccessToken) })).body;
  const row = (consentId: string) => t.platform.db.knex('open_banking.consents').where({ id: consentId }).first();
  const events = (consentId: string) =>
    t.platform.db.knex('open_banking.outbox').where({ aggregate_id: consentId }).orderBy('sequence');
  const accountRows = (consentId: string) =>
    t.platform.db.knex('open_banking.consent_accounts').where({ consent_id: consentId }).orderBy('created_at');
  /** Nothing of an approval was written: still awaiting, no accounts, no event, no code. */
  const expectUntouched = async (consentId: string, otpFailures = 0) => {
    expect(await row(consentId)).toMatchObject({
      status: 'AWAITING_AUTHORISATION',
      account_ids: [],
      otp_failures: otpFailures,
    });
    expect(await accountRows(consentId)).toEqual([]);
    expect(await events(consentId)).toEqual([]);
    expect(await t.platform.db.knex('auth.credentials').where({ owner_id: consentId })).toEqual([]);
  };

  /** A second account of the same bank customer, enrolled under another alias. */
  const secondAccount = async (bank: PaymentBank, customer: Customer): Promise<string> => {
    // The sandbox keeps one account per customer and currency: the second one is in USD.
    const account = await bank.sandbox.openAccount({
      customerRef: customer.customerRef,
      holderName: 'Customer',
      currency: 'USD',
      balance: 5_000,
    });
    const alias = `savings.${randomInt(0, 1e9)}`;
    const claimed = await t.rest('POST', '/v1/identity/claim', {
      headers: { 'x-service-bank-key': bank.bankKey },
      body: {
        npt_handle: alias,
        iban: account.iban,
        customer_display_name: 'Customer',
        bank_customer_ref: customer.customerRef,
      },
    });
    expect(claimed.status).toBe(201);
    return account.iban;
  };

  beforeAll(async () => {
    t = await startTestPlatform({ env: { PUBLIC_BASE_URL: `${ISSUER}/` } });
    base = t.platform.restUrl;
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    await enableOpenBanking(t, alpha);
    await enableOpenBanking(t, beta);
    // Registered with a core nobody listens on: every call to it fails to connect.
    deadBank = await t.seed.registerBank({
      ob_enabled: true,
      ob_scopes_supported: ['accounts:read'],
      max_consent_expiry_days: 30,
    });
    tpp = await t.seed.registerTpp({ name: 'Budget <App>', redirect_uris: [REDIRECT, REDIRECT_WITH_QUERY] });
  });
  afterAll(async () => {
    await alpha?.sandbox.stop();
    await beta?.sandbox.stop();
    await t?.stop();
  });

  it("approves: redirect with a fresh code, consent_id, the unchanged state and iss; AUTHORISED with the customer's accounts at that bank only, consent.granted", async () => {
    const customer = await alpha.customer();
    const savings = await secondAccount(alpha, customer);
    // Not the customer's: another customer of the same bank, and the same reference at another bank.
    await alpha.customer();
    await t.rest('POST', '/v1/identity/claim', {
      headers: { 'x-service-bank-key': beta.bankKey },
      body: {
        npt_handle: `twin.${randomInt(0, 1e9)}`,
        iban: (await beta.customer()).iban,
        customer_display_name: 'Twin',
        bank_customer_ref: customer.customerRef,
      },
    });
    const consent = await consentAt(alpha);

    const answer = await approve(consent.consentId, { value: customer.alias }, customer.otp);
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('POST', '/ob/auth/{consent_id}/approve').safeParse(answer.body).error).toBeUndefined();
    const redirect = new URL(answer.body.redirect_to);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT);
    expect([...redirect.searchParams.keys()]).toEqual(['code', 'consent_id', 'state', 'iss']);
    const code = redirect.searchParams.get('code')!;
    // oac_ + 32 base62 characters: about 190 bits of randomness (at least 128 required).
    expect(code).toMatch(/^oac_[0-9A-Za-z]{32}$/);
    expect(Object.fromEntries(redirect.searchParams)).toMatchObject({
      consent_id: consent.consentId,
      state: consent.state,
      iss: ISSUER,
    });

    const record = await consentRecord(consent.consentId);
    expect(record).toMatchObject({ status: 'AUTHORISED', authorised_at: expect.any(String) });
    const accounts = await accountRows(consent.consentId);
    expect(accounts.map((account) => account.iban)).toEqual([customer.iban, savings]);
    expect(accounts.every((account) => account.bank_handle === alpha.handle)).toBe(true);
    expect(record.account_ids).toEqual(accounts.map((account) => account.id));
    for (const id of record.account_ids) expect(id).toMatch(/^acc_[0-9A-Za-z]{24}$/);

    expect((await events(consent.consentId)).map((event) => [event.kind, event.data.status])).toEqual([
      ['consent.granted', 'AUTHORISED'],
    ]);
    // The code is in the vault as its hash only, bound to the consent, for 60 seconds.
    const credentials = await t.platform.db.knex('auth.credentials').where({ owner_id: consent.consentId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({
      kind: 'ob_authorization_code',
      hash: createHash('sha256').update(code).digest('hex'),
    });
    const lifetime = new Date(credentials[0].expires_at).getTime() - new Date(credentials[0].created_at).getTime();
    expect(lifetime).toBeGreaterThan(59_000);
    expect(lifetime).toBeLessThanOrEqual(60_000);
    expect(JSON.stringify(credentials)).not.toContain(code);
  });

  it('gives back a long, non-ASCII state unchanged and keeps the query of the registered redirect URI', async () => {
    const customer = await alpha.customer();
    const state = `${'a1-_.~'.repeat(80)}ü状態 &=?/+%20`.slice(0, 512);
    const consent = await consentAt(alpha, { state, redirect_uri: REDIRECT_WITH_QUERY });
    const answer = await approve(consent.consentId, { type: 'iban', value: customer.iban }, customer.otp);
    expect(answer.status).toBe(200);
    expect(answer.body.redirect_to.startsWith(`${REDIRECT_WITH_QUERY}&code=`)).toBe(true);
    const query = new URL(answer.body.redirect_to).searchParams;
    expect(query.get('state')).toBe(state);
    expect(query.get('app')).toBe('budget');
  });

  it('rejects: REJECTED, redirect with error=access_denied, consent_id, state and iss; repeating answers the same; approving afterwards is 409', async () => {
    const customer = await alpha.customer();
    const consent = await consentAt(alpha);
    const pageToken = await opened(consent.consentId);
    const answer = await reject(consent.consentId, pageToken);
    expect(answer.status).toBe(200);
    const query = new URL(answer.body.redirect_to).searchParams;
    expect([...query]).toEqual([
      ['error', 'access_denied'],
      ['consent_id', consent.consentId],
      ['state', consent.state],
      ['iss', ISSUER],
    ]);
    expect(answer.body.redirect_to).not.toContain('code=');
    expect((await consentRecord(consent.consentId)).status).toBe('REJECTED');
    expect((await reject(consent.consentId, pageToken)).body).toEqual(answer.body);
    expectError(
      await approve(consent.consentId, { value: customer.alias }, customer.otp),
      409,
      'CONSENT_ALREADY_DECIDED',
    );
    expect(await t.platform.db.knex('auth.credentials').where({ owner_id: consent.consentId })).toEqual([]);
  });

  it("refuses a rejection by the consent id alone, or with another consent page's token (401 UNAUTHORIZED): the consent stays open for its customer", async () => {
    const consent = await consentAt(alpha);
    const other = await consentAt(alpha);
    expectError(await reject(consent.consentId), 401, 'UNAUTHORIZED');
    expectError(await call(base, 'POST', `/ob/auth/${consent.consentId}/reject`, { body: {} }), 401, 'UNAUTHORIZED');
    expectError(await reject(consent.consentId, await opened(other.consentId)), 401, 'UNAUTHORIZED');
    expectError(await reject(consent.consentId, 'cpt_9999999999_' + '0'.repeat(64)), 401, 'UNAUTHORIZED');
    await expectUntouched(consent.consentId);
    expect((await view(consent.consentId)).body.status).toBe('AWAITING_AUTHORISATION');
    // The page's JSON view is what the page shows, not its token.
    expect(Object.keys((await view(consent.consentId)).body)).not.toContain('page_token');
  });

  it('counts wrong OTPs: attempts left after each, the third rejects the consent', async () => {
    const customer = await alpha.customer();
    const consent = await consentAt(alpha);
    expect((await view(consent.consentId)).body.otp_attempts_left).toBe(3);
    for (const left of [2, 1]) {
      const answer = await approve(consent.consentId, { value: customer.alias }, '000000');
      expectError(answer, 401, 'OTP_INVALID');
      expect(answer.body.error.detail).toContain(`${left} attempt${left === 1 ? '' : 's'} left`);
      expect((await view(consent.consentId)).body).toMatchObject({
        status: 'AWAITING_AUTHORISATION',
        otp_attempts_left: left,
      });
    }
    const third = await approve(consent.consentId, { value: customer.alias }, '000000');
    expectError(third, 401, 'OTP_INVALID');
    expect(third.body.error.detail).toContain('rejected');
    const after = (await view(consent.consentId)).body;
    expect(after).toMatchObject({ status: 'REJECTED', otp_attempts_left: 0 });
    expect(new URL(after.redirect_to).searchParams.get('error')).toBe('access_denied');
    expect(await row(consent.consentId)).toMatchObject({ status: 'REJECTED', otp_failures: 3, account_ids: [] });
    // The right OTP is too late now.
    expectError(
      await approve(consent.consentId, { value: customer.alias }, customer.otp),
      409,
      'CONSENT_ALREADY_DECIDED',
    );
  });

  it('refuses a customer of another bank (ALIAS_NOT_FOUND) without asking any core, by alias, alias@bank and IBAN', async () => {
    const stranger = await beta.customer();
    const consent = await consentAt(alpha);
    alpha.sandbox.resetRequestCounts();
    beta.sandbox.resetRequestCounts();
    for (const customer of [
      { value: stranger.alias },
      { value: `${stranger.alias}@${beta.handle}` },
      { type: 'iban', value: stranger.iban },
    ]) {
      const answer = await approve(consent.consentId, customer, stranger.otp);
      expectError(answer, 404, 'ALIAS_NOT_FOUND');
      expect(answer.body.error.detail).toContain(alpha.handle);
    }
    expect(alpha.sandbox.requestCounts().byOperation.verify + beta.sandbox.requestCounts().byOperation.verify).toBe(0);
    await expectUntouched(consent.consentId);
  });

  it('refuses to decide again on an approved consent (409 CONSENT_ALREADY_DECIDED): another OTP (counted as a refused one), another customer, a rejection', async () => {
    const customer = await alpha.customer();
    const other = await alpha.customer();
    const consent = await consentAt(alpha);
    // A second tab of the page, opened before the approval in the first.
    const pageToken = await opened(consent.consentId);
    expect((await approve(consent.consentId, { value: customer.alias }, customer.otp)).status).toBe(200);
    const guesses = async () => {
      const guard = await t.platform.db
        .knex('identity.otp_guards')
        .where({ bank_handle: alpha.handle, customer_ref: customer.customerRef })
        .first();
      return (guard?.attempts ?? []) as unknown[];
    };
    // The accepted check is given back within moments (riding on the next check, or in a batch).
    await eventually(
      async () => ((await guesses()).length === 0 ? true : undefined),
      'the accepted check to be given back',
    );
    expectError(await approve(consent.consentId, { value: customer.alias }, '000001'), 409, 'CONSENT_ALREADY_DECIDED');
    // The stored approval must not become a way to test OTPs without the bank: the guess counts.
    expect(await guesses()).toHaveLength(1);
    expectError(await approve(consent.consentId, { value: other.alias }, other.otp), 409, 'CONSENT_ALREADY_DECIDED');
    expectError(await reject(consent.consentId, pageToken), 409, 'CONSENT_ALREADY_DECIDED');
    expect((await consentRecord(consent.consentId)).status).toBe('AUTHORISED');
    expect(await events(consent.consentId)).toHaveLength(1);
  });

  it('answers the same approval sent again (an answer lost) with a new code; redeeming one ends the others, and after that the approval is 409', async () => {
    const customer = await alpha.customer();
    const consent = await consentAt(alpha);
    const codeOf = (answer: { body: { redirect_to: string } }) =>
      new URL(answer.body.redirect_to).searchParams.get('code')!;
    const first = await approve(consent.consentId, { value: customer.alias }, customer.otp);
    const again = await approve(consent.consentId, { value: customer.alias }, customer.otp);
    expect([first.status, again.status]).toEqual([200, 200]);
    const redirect = new URL(again.body.redirect_to);
    expect([redirect.searchParams.get('consent_id'), redirect.searchParams.get('state')]).toEqual([
      consent.consentId,
      consent.state,
    ]);
    expect(codeOf(again)).not.toBe(codeOf(first));
    // One approval, one event: the answer again moves nothing.
    expect(await events(consent.consentId)).toHaveLength(1);

    const exchange = (code: string) =>
      call(base, 'POST', '/ob/token', {
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          consent_id: consent.consentId,
          code_verifier: consent.codeVerifier,
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    expect((await exchange(codeOf(again))).status).toBe(200);
    expectError(await exchange(codeOf(first)), 400, 'INVALID_GRANT');
    expectError(
      await approve(consent.consentId, { value: customer.alias }, customer.otp),
      409,
      'CONSENT_ALREADY_DECIDED',
    );
  });

  it('answers both copies of an approval sent twice at once, with one approval and one event', async () => {
    const customer = await alpha.customer();
    const consent = await consentAt(alpha);
    const answers = await Promise.all(
      [1, 2].map(() => approve(consent.consentId, { value: customer.alias }, customer.otp)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(await events(consent.consentId)).toHaveLength(1);
    expect((await row(consent.consentId)).status).toBe('AUTHORISED');
  });

  it('refuses an expired consent (401 CONSENT_EXPIRED) and records the expiry with consent.expired', async () => {
    const customer = await alpha.customer();
    const consent = await consentAt(alpha);
    const pageToken = await opened(consent.consentId);
    // Past its expiry (the job has not run yet): the test moves the clock, not the code.
    await t.platform.db
      .knex('open_banking.consents')
      .where({ id: consent.consentId })
      .update({ expires_at: new Date(Date.now() - 1_000) });
    expect((await view(consent.consentId)).body.status).toBe('EXPIRED');
    expectError(await approve(consent.consentId, { value: customer.alias }, customer.otp), 401, 'CONSENT_EXPIRED');
    expectError(await reject(consent.consentId, pageToken), 401, 'CONSENT_EXPIRED');
    expect(await row(consent.consentId)).toMatchObject({ status: 'EXPIRED', account_ids: [] });
    expect((await events(consent.consentId)).map((event) => event.kind)).toEqual(['consent.expired']);
    expect(await accountRows(consent.consentId)).toEqual([]);
  });

  it('answers CBS_ERROR when the core fails and CBS_TIMEOUT when it is unreachable; nothing changes, no attempt is counted', async () => {
    const customer = await alpha.customer();
    const consent = await consentAt(alpha);
    alpha.sandbox.injectFaults({ errorRate: 1, errorStatus: 500, operations: ['verify'] });
    try {
      expectError(await approve(consent.consentId, { value: customer.alias }, customer.otp), 502, 'CBS_ERROR');
    } finally {
      alpha.sandbox.clearFaults();
    }
    await expectUntouched(consent.consentId);

    const unreachable = await t.seed.claimAlias(deadBank);
    const deadConsent = await createConsent(t, tpp.tppAccessToken, {
      bank_handle: deadBank.handle,
      redirect_uri: REDIRECT,
      scopes: ['accounts:read'],
    });
    expectError(await approve(deadConsent.consentId, { value: unreachable.handle }, '123456'), 503, 'CBS_TIMEOUT');
    await expectUntouched(deadConsent.consentId);

    // The core is back: the same customer approves with the same OTP.
    expect((await approve(consent.consentId, { value: customer.alias }, customer.otp)).status).toBe(200);
  });

  it('answers CONSENT_NOT_FOUND for an unknown consent, VALIDATION_ERROR for a malformed approval', async () => {
    expectError(await view('con_unknown0000000000000000'), 404, 'CONSENT_NOT_FOUND');
    expectError(await approve('con_unknown0000000000000000', { value: 'someone' }, '123456'), 404, 'CONSENT_NOT_FOUND');
    expectError(await reject('con_unknown0000000000000000'), 404, 'CONSENT_NOT_FOUND');
    const consent = await consentAt(alpha);
    expectError(
      await approve(consent.consentId, { type: 'phone', value: '+218912345678' }, '123456'),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await approve(consent.consentId, { value: 'someone' }, 'abc'), 400, 'VALIDATION_ERROR');
    await expectUntouched(consent.consentId);
  });

  it('shows the page its view as JSON: TPP, bank name, scopes, expiry, attempts', async () => {
    const consent = await consentAt(alpha, { scopes: ['accounts:read', 'transactions:read'] });
    const answer = await view(consent.consentId);
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('GET', '/ob/auth/{consent_id}').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toMatchObject({
      consent_id: consent.consentId,
      status: 'AWAITING_AUTHORISATION',
      tpp_name: 'Budget <App>',
      bank_handle: alpha.handle,
      bank_name: `Pay Bank ${alpha.institutionCode}`,
      scopes: ['accounts:read', 'transactions:read'],
      otp_attempts_left: 3,
      redirect_to: null,
    });
    // Neither the state nor the challenge is shown to whoever holds the consent id.
    expect(answer.text).not.toContain(consent.state);
  });

  describe('HTML forms posted without script', () => {
    const postForm = (path: string, fields: Record<string, string>) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: new URLSearchParams(fields).toString(),
      });

    it('approve answers 303 See Other to the redirect with the code; a refusal goes 303 back to the page, which shows it', async () => {
      const customer = await alpha.customer();
      const consent = await consentAt(alpha);
      const approvePath = `/ob/auth/${consent.consentId}/approve`;

      const refused = await postForm(approvePath, {
        customer_type: 'alias',
        customer_value: customer.alias,
        otp: '000000',
      });
      expect(refused.status).toBe(303);
      expect(refused.headers.get('location')).toBe(`/ob/auth/${consent.consentId}?error=OTP_INVALID`);
      const page = await fetch(`${base}${refused.headers.get('location')}`, { headers: { accept: 'text/html' } });
      const html = await page.text();
      expect(html).toMatch(/id="otp-error" role="alert">The one-time password was not accepted\. 2 attempts left\.</);

      const malformed = await postForm(approvePath, {
        customer_type: 'alias',
        customer_value: customer.alias,
        otp: '1',
        extra: 'x',
      });
      expect([malformed.status, malformed.headers.get('location')]).toEqual([
        303,
        `/ob/auth/${consent.consentId}?error=VALIDATION_ERROR`,
      ]);

      const approved = await postForm(approvePath, {
        customer_type: 'alias',
        customer_value: customer.alias,
        otp: customer.otp,
      });
      expect(approved.status).toBe(303);
      const location = new URL(approved.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('code')).toMatch(/^oac_/);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({
        consent_id: consent.consentId,
        state: consent.state,
        iss: ISSUER,
      });
      expect((await consentRecord(consent.consentId)).status).toBe('AUTHORISED');
    });

    it('reject, with the page token, answers 303 See Other to the redirect with error=access_denied; without, back to the page', async () => {
      const consent = await consentAt(alpha);
      const refused = await postForm(`/ob/auth/${consent.consentId}/reject`, {});
      expect(refused.status).toBe(303);
      expect(refused.headers.get('location')).toBe(`/ob/auth/${consent.consentId}?error=UNAUTHORIZED`);
      const rejected = await postForm(`/ob/auth/${consent.consentId}/reject`, {
        page_token: await opened(consent.consentId),
      });
      expect(rejected.status).toBe(303);
      const location = new URL(rejected.headers.get('location')!);
      expect(Object.fromEntries(location.searchParams)).toEqual({
        error: 'access_denied',
        consent_id: consent.consentId,
        state: consent.state,
        iss: ISSUER,
      });
    });
  });

  it('serves the page as escaped HTML under a CSP whose form-action allows the redirect URI only besides itself', async () => {
    const consent = await consentAt(alpha, { scopes: ['accounts:read', 'payments:write'] });
    const page = await fetch(`${base}/ob/auth/${consent.consentId}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' https://tpp.example;");
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    const html = await page.text();
    expect(html).toContain('Budget &lt;App&gt;');
    expect(html).not.toContain('Budget <App>');
    expect(html).toContain('See your accounts and their details');
    expect(html).toContain('Start payments from your accounts');
    expect(html).toContain(`action="/ob/auth/${consent.consentId}/approve"`);
    expect(
      (await fetch(`${base}/ob/auth/con_unknown0000000000000000`, { headers: { accept: 'text/html' } })).status,
    ).toBe(404);
  });
});
