import { randomUUID } from 'node:crypto';
import { createBankCoreClient, type BankCoreClient } from '@gateway/bank-core-client';
import { createLogger } from '@gateway/kernel';
import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { gql } from '../support/graphql';
import { startMinimalBank, type MinimalBank } from '../support/minimal-bank';
import { openBankingSeeds, type Grant, type OpenBankingSeeds } from '../support/open-banking';
import { bearer, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const quiet = createLogger('test', 'silent');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const today = (): string => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number): string => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** An RFC 6750 challenge on a 401 of a data call, besides the spec's error body. */
function expectUnauthorized(answer: Answer, code: string): void {
  expectError(answer, 401, code);
  expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
}

/** Account information (AIS) end to end: rest-compat -> router (access token) -> open-banking -> bank core, live. */
describe('Open Banking account information', () => {
  let t: TestPlatform;
  let base: string;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let core: BankCoreClient;
  let alice: Customer;
  let bob: Customer;
  let tpp: { tppId: string; tppAccessToken: string };
  let otherTpp: { tppId: string; tppAccessToken: string };
  let grant: Grant;

  const get = (path: string, headers: Record<string, string> = grant.headers()) => call(base, 'GET', path, { headers });

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
    alice = await bank.customer({ balance: 250_075 });
    bob = await bank.customer({ balance: 1_000 });
    // Alice's statement: a salary in, a rent payment out.
    await core.credit({
      iban: alice.iban,
      amount: 300_000,
      currency: 'LYD',
      reference: `ref_${randomUUID()}`,
      description: 'Salary',
    });
    await core.debit({
      iban: alice.iban,
      amount: 50_000,
      currency: 'LYD',
      reference: `ref_${randomUUID()}`,
      description: 'Rent',
    });
    tpp = await t.seed.registerTpp({ name: 'Budget App' });
    otherTpp = await t.seed.registerTpp({ name: 'Other App' });
    grant = await ob.grant(tpp.tppAccessToken, bank.handle, [
      { iban: alice.iban, bankHandle: bank.handle },
      { iban: bob.iban, bankHandle: bank.handle },
    ]);
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('lists the consented accounts, read live from the bank core, in the documented shape', async () => {
    const answer = await get('/ob/accounts');
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('GET', '/ob/accounts').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toEqual({
      accounts: [
        {
          account_id: grant.accountIds[0],
          iban: alice.iban,
          currency: 'LYD',
          account_type: 'CURRENT',
          display_name: expect.stringMatching(/^Customer \d+$/),
        },
        {
          account_id: grant.accountIds[1],
          iban: bob.iban,
          currency: 'LYD',
          account_type: 'CURRENT',
          display_name: expect.stringMatching(/^Customer \d+$/),
        },
      ],
    });
    expect(grant.accountIds[0]).toMatch(/^acc_/);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(answer.headers.get(name)).toMatch(/^\d+$/);
  });

  it('reads balances as integer minor units, live: a movement at the core shows on the next read', async () => {
    const path = `/ob/accounts/${grant.accountIds[0]}/balances`;
    const first = await get(path);
    expect(first.status).toBe(200);
    expect(responseSchemaOf('GET', '/ob/accounts/{account_id}/balances').safeParse(first.body).error).toBeUndefined();
    expect(first.body).toEqual({
      account_id: grant.accountIds[0],
      balances: [{ type: 'AVAILABLE', amount: await bank.balance(alice.iban), currency: 'LYD' }],
    });
    expect(first.body.balances[0].amount).toBe(250_075 + 300_000 - 50_000);

    await core.debit({
      iban: alice.iban,
      amount: 75,
      currency: 'LYD',
      reference: `ref_${randomUUID()}`,
      description: 'Coffee',
    });
    expect((await get(path)).body.balances[0].amount).toBe(500_000);
  });

  it('lists transactions newest first with direction and positive amounts, bounded by count', async () => {
    const answer = await get(
      `/ob/accounts/${grant.accountIds[0]}/transactions?fromDate=${daysAgo(1)}&toDate=${today()}`,
    );
    expect(answer.status).toBe(200);
    expect(
      responseSchemaOf('GET', '/ob/accounts/{account_id}/transactions').safeParse(answer.body).error,
    ).toBeUndefined();
    expect(answer.body.account_id).toBe(grant.accountIds[0]);
    const lines = answer.body.transactions as Array<Record<string, unknown>>;
    const byDescription = Object.fromEntries(lines.map((line) => [line.description, line]));
    expect(byDescription.Salary).toEqual({
      transaction_id: expect.any(String),
      booking_date: today(),
      amount: 300_000,
      currency: 'LYD',
      credit_debit_indicator: 'CREDIT',
      description: 'Salary',
    });
    expect(byDescription.Rent).toMatchObject({
      amount: 50_000,
      credit_debit_indicator: 'DEBIT',
      booking_date: today(),
    });
    // Without dates: the default window (the last 90 days) holds today's lines; count bounds it.
    expect((await get(`/ob/accounts/${grant.accountIds[0]}/transactions`)).body.transactions).toHaveLength(
      lines.length,
    );
    expect((await get(`/ob/accounts/${grant.accountIds[0]}/transactions?count=1`)).body.transactions).toHaveLength(1);
    // Nothing booked in a window that ends before today.
    expect(
      (await get(`/ob/accounts/${grant.accountIds[0]}/transactions?fromDate=2020-01-01&toDate=2020-12-31`)).body
        .transactions,
    ).toEqual([]);
  });

  it('accepts both ISO 8601 forms for the dates (date and date-time) with the same answer', async () => {
    const path = `/ob/accounts/${grant.accountIds[0]}/transactions`;
    const asDates = await get(`${path}?fromDate=${daysAgo(2)}&toDate=${today()}`);
    const asDateTimes = await get(`${path}?fromDate=${daysAgo(2)}T00:00:00Z&toDate=${today()}T23:59:59Z`);
    const withOffset = await get(
      `${path}?fromDate=${encodeURIComponent(`${daysAgo(2)}T00:00:00+02:00`)}&toDate=${encodeURIComponent(`${today()}T23:59:59.123+02:00`)}`,
    );
    const noOffset = await get(`${path}?fromDate=${daysAgo(2)}T10:43:07&toDate=${today()}T10:43:07`);
    for (const answer of [asDates, asDateTimes, withOffset, noOffset])
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: asDates.body });
    expect(asDates.body.transactions.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses fromDate after toDate, malformed dates and count outside 1-500 with 400 VALIDATION_ERROR', async () => {
    const path = `/ob/accounts/${grant.accountIds[0]}/transactions`;
    const refused = async (query: string, field: RegExp) => {
      const answer = await get(`${path}?${query}`);
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error.detail).toMatch(field);
    };
    await refused(`fromDate=${today()}&toDate=${daysAgo(1)}`, /^fromDate: is after toDate/);
    await refused(`fromDate=${today()}T12:00:00Z&toDate=${today()}T11:00:00Z`, /^fromDate: is after toDate/);
    await refused('fromDate=2024-02-30', /^fromDate/);
    await refused('toDate=yesterday', /^toDate/);
    await refused('fromDate=2024-03-01T25:00:00Z', /^fromDate/);
    await refused('count=0', /^count/);
    await refused('count=501', /^count/);
    await refused('count=2.5', /^count/);
    await refused('limit=5', /^limit: unknown query parameter/);
    expect((await get(`${path}?count=500`)).status).toBe(200);
  });

  it('enforces each scope per call: 403 SCOPE_INSUFFICIENT', async () => {
    const narrow = await ob.grant(
      tpp.tppAccessToken,
      bank.handle,
      [{ iban: alice.iban, bankHandle: bank.handle }],
      ['accounts:read'],
    );
    expect((await get('/ob/accounts', narrow.headers())).status).toBe(200);
    expectError(
      await get(`/ob/accounts/${narrow.accountIds[0]}/balances`, narrow.headers()),
      403,
      'SCOPE_INSUFFICIENT',
    );
    expectError(
      await get(`/ob/accounts/${narrow.accountIds[0]}/transactions`, narrow.headers()),
      403,
      'SCOPE_INSUFFICIENT',
    );

    const balancesOnly = await ob.grant(
      tpp.tppAccessToken,
      bank.handle,
      [{ iban: alice.iban, bankHandle: bank.handle }],
      ['balances:read'],
    );
    expectError(await get('/ob/accounts', balancesOnly.headers()), 403, 'SCOPE_INSUFFICIENT');
    expect((await get(`/ob/accounts/${balancesOnly.accountIds[0]}/balances`, balancesOnly.headers())).status).toBe(200);
  });

  it('answers 404 ACCOUNT_NOT_FOUND, the same way, for an unknown id and for an account of another consent (even of the same IBAN)', async () => {
    const other = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    // The same IBAN has another acc_ id under another consent.
    expect(other.accountIds[0]).not.toBe(grant.accountIds[0]);
    for (const suffix of ['balances', 'transactions']) {
      const foreign = await get(`/ob/accounts/${other.accountIds[0]}/${suffix}`);
      const unknown = await get(`/ob/accounts/acc_000000000000000000000000/${suffix}`);
      expectError(foreign, 404, 'ACCOUNT_NOT_FOUND');
      expectError(unknown, 404, 'ACCOUNT_NOT_FOUND');
      expect(foreign.body.error.message).toBe(unknown.body.error.message);
      expect(foreign.body.error.detail.replace(other.accountIds[0]!, 'ID')).toBe(
        unknown.body.error.detail.replace('acc_000000000000000000000000', 'ID'),
      );
      expect(foreign.text).not.toContain(alice.iban);
    }
  });

  it('refuses calls without a valid access token and X-Consent-Id with the contract codes, each 401 with WWW-Authenticate', async () => {
    // No token at all (UK OB functional: no token 401).
    expectUnauthorized(await get('/ob/accounts', {}), 'UNAUTHORIZED');
    expectUnauthorized(await get('/ob/accounts', { 'x-consent-id': grant.consentId }), 'UNAUTHORIZED');
    // The TPP's own token is not an access token for data, with or without X-Consent-Id.
    expectUnauthorized(await get('/ob/accounts', bearer(tpp.tppAccessToken)), 'UNAUTHORIZED');
    expectUnauthorized(
      await get('/ob/accounts', { ...bearer(tpp.tppAccessToken), 'x-consent-id': grant.consentId }),
      'UNAUTHORIZED',
    );
    expectUnauthorized(
      await get(`/ob/accounts/${grant.accountIds[0]}/balances`, {
        ...bearer(tpp.tppAccessToken),
        'x-consent-id': grant.consentId,
      }),
      'UNAUTHORIZED',
    );
    // An unknown access token; a token without X-Consent-Id.
    expectUnauthorized(
      await get('/ob/accounts', {
        authorization: 'Bearer at_unknownunknownunknownunknown00',
        'x-consent-id': grant.consentId,
      }),
      'UNAUTHORIZED',
    );
    expectUnauthorized(await get('/ob/accounts', bearer(grant.tokens.accessToken)), 'UNAUTHORIZED');
    // A merchant key is no Open Banking credential either.
    const merchant = await t.seed.createMerchant();
    expectUnauthorized(
      await get('/ob/accounts', { ...bearer(merchant.apiKey), 'x-consent-id': grant.consentId }),
      'UNAUTHORIZED',
    );

    // An expired access token.
    const expired = await ob.issueTokens(grant.consentId, ['accounts:read'], {
      accessExpiresAt: new Date(Date.now() - 1_000),
    });
    expectUnauthorized(
      await get('/ob/accounts', { authorization: `Bearer ${expired.accessToken}`, 'x-consent-id': grant.consentId }),
      'TOKEN_EXPIRED',
    );

    // A valid token naming another consent (the same TPP's, or another TPP's): authenticated, not allowed.
    const second = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: bob.iban, bankHandle: bank.handle }]);
    const foreign = await ob.grant(otherTpp.tppAccessToken, bank.handle, [{ iban: bob.iban, bankHandle: bank.handle }]);
    const forbidden = await get('/ob/accounts', grant.headers(second.consentId));
    expectError(forbidden, 403, 'FORBIDDEN');
    expect(forbidden.headers.get('www-authenticate')).toBeNull();
    expectError(await get('/ob/accounts', foreign.headers(grant.consentId)), 403, 'FORBIDDEN');
    // ... and the other TPP's consent and accounts stay out of reach through any of its ids.
    expectError(await get(`/ob/accounts/${foreign.accountIds[0]}/balances`), 404, 'ACCOUNT_NOT_FOUND');
    expectError(
      await call(base, 'GET', `/ob/consents/${foreign.consentId}`, { headers: bearer(tpp.tppAccessToken) }),
      404,
      'CONSENT_NOT_FOUND',
    );
  });

  it('refuses an access token in the query (400 invalid_request), even beside a valid Authorization header', async () => {
    const inQuery = await call(base, 'GET', `/ob/accounts?access_token=${grant.tokens.accessToken}`, {
      headers: { 'x-consent-id': grant.consentId },
    });
    expectError(inQuery, 400, 'VALIDATION_ERROR');
    expect(inQuery.body.error.detail).toMatch(/^access_token: not accepted in the query/);
    expect(inQuery.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request"/);
    const both = await get(`/ob/accounts/${grant.accountIds[0]}/balances?access_token=${grant.tokens.accessToken}`);
    expectError(both, 400, 'VALIDATION_ERROR');
    expect(both.text).not.toContain('balances');
  });

  it('answers 401 CONSENT_EXPIRED once the consent is past expires_at, even before the expiry job moves it', async () => {
    const expiring = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    expect((await get('/ob/accounts', expiring.headers())).status).toBe(200);
    await t.platform.db
      .knex('open_banking.consents')
      .where({ id: expiring.consentId })
      .update({ expires_at: new Date(Date.now() - 1_000) });
    expectUnauthorized(await get('/ob/accounts', expiring.headers()), 'CONSENT_EXPIRED');
    expectUnauthorized(
      await get(`/ob/accounts/${expiring.accountIds[0]}/balances`, expiring.headers()),
      'CONSENT_EXPIRED',
    );
    // Recorded as EXPIRED (the job's move): the same answer.
    await t.platform.db
      .knex('open_banking.consents')
      .where({ id: expiring.consentId })
      .update({ status: 'EXPIRED', expired_at: new Date() });
    expectUnauthorized(
      await get(`/ob/accounts/${expiring.accountIds[0]}/transactions`, expiring.headers()),
      'CONSENT_EXPIRED',
    );
  });

  it("plays x-fapi-interaction-id back: the TPP's UUID, or a fresh one when absent or not a UUID, on successes and errors", async () => {
    const sent = randomUUID();
    expect(
      (await get('/ob/accounts', { ...grant.headers(), 'x-fapi-interaction-id': sent })).headers.get(
        'x-fapi-interaction-id',
      ),
    ).toBe(sent);
    const absent = (await get('/ob/accounts')).headers.get('x-fapi-interaction-id');
    expect(absent).toMatch(UUID);
    const junk = (
      await get('/ob/accounts', { ...grant.headers(), 'x-fapi-interaction-id': '<script>alert(1)</script>' })
    ).headers.get('x-fapi-interaction-id');
    expect(junk).toMatch(UUID);
    const refused = await get('/ob/accounts', { 'x-fapi-interaction-id': sent });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-fapi-interaction-id')).toBe(sent);
    const invalid = await get(`/ob/accounts/${grant.accountIds[0]}/transactions?count=0`, {
      ...grant.headers(),
      'x-fapi-interaction-id': sent,
    });
    expect({ status: invalid.status, id: invalid.headers.get('x-fapi-interaction-id') }).toEqual({
      status: 400,
      id: sent,
    });
  });

  it('serves the same data in GraphQL under Consent.accounts for the access token, and not for the TPP token', async () => {
    const CONSENT_ACCOUNTS = gql<
      {
        consent: {
          id: string;
          accounts: Array<{
            accountId: string;
            iban: string;
            accountType: string;
            balances: Array<{ type: string; amount: number; currency: string }>;
            transactions: Array<{ amount: number; creditDebitIndicator: string; description: string }>;
          }>;
        };
      },
      { id: string; from: string; to: string }
    >(`query($id: ID!, $from: String, $to: String) {
      consent(id: $id) { id accounts { accountId iban accountType balances { type amount currency } transactions(fromDate: $from, toDate: $to, count: 10) { amount creditDebitIndicator description } } }
    }`);
    const vars = { id: grant.consentId, from: `${daysAgo(1)}T00:00:00Z`, to: today() };
    const { consent } = await t.execute(CONSENT_ACCOUNTS, vars, grant.headers());
    expect(consent.accounts.map((account) => [account.accountId, account.iban, account.accountType])).toEqual([
      [grant.accountIds[0], alice.iban, 'CURRENT'],
      [grant.accountIds[1], bob.iban, 'CURRENT'],
    ]);
    expect(consent.accounts[0]!.balances).toEqual([
      { type: 'AVAILABLE', amount: await bank.balance(alice.iban), currency: 'LYD' },
    ]);
    expect(consent.accounts[0]!.transactions).toContainEqual({
      amount: 300_000,
      creditDebitIndicator: 'CREDIT',
      description: 'Salary',
    });
    expect(consent.accounts[1]!.transactions).toEqual([]);

    const ROOT = gql<{ obAccountBalances: { accountId: string; balances: Array<{ amount: number }> } }, { id: string }>(
      `query($id: ID!) { obAccountBalances(accountId: $id) { accountId balances { amount } } }`,
    );
    expect((await t.execute(ROOT, { id: grant.accountIds[1]! }, grant.headers())).obAccountBalances).toEqual({
      accountId: grant.accountIds[1],
      balances: [{ amount: 1_000 }],
    });

    // The TPP token reads the consent, never its accounts.
    const asTpp = await t.executeExpectingErrors(CONSENT_ACCOUNTS, vars, bearer(tpp.tppAccessToken));
    expect(asTpp.errors[0]?.extensions?.code).toBe('UNAUTHORIZED');
    const scoped = await ob.grant(
      tpp.tppAccessToken,
      bank.handle,
      [{ iban: alice.iban, bankHandle: bank.handle }],
      ['accounts:read'],
    );
    const noBalances = await t.executeExpectingErrors(
      CONSENT_ACCOUNTS,
      { ...vars, id: scoped.consentId },
      scoped.headers(),
    );
    expect(noBalances.errors.map((error) => error.extensions?.code)).toContain('SCOPE_INSUFFICIENT');
  });

  describe('against a bank core written from the spec alone', () => {
    let minimal: MinimalBank;
    let customer: { iban: string };
    let grantAtMinimal: Grant;

    beforeAll(async () => {
      minimal = await startMinimalBank(t);
      await ob.enableOpenBanking(minimal.handle, minimal.bankKey);
      customer = await minimal.customer({ balance: 12_345 });
      const minimalCore = createBankCoreClient({
        bankHandle: minimal.handle,
        baseUrl: minimal.core.url,
        internalKey: minimal.internalKey,
        production: false,
        logger: quiet,
      });
      await minimalCore.debit({
        iban: customer.iban,
        amount: 345,
        currency: 'LYD',
        reference: `ref_${randomUUID()}`,
        description: 'Groceries',
      });
      grantAtMinimal = await ob.grant(tpp.tppAccessToken, minimal.handle, [
        { iban: customer.iban, bankHandle: minimal.handle },
      ]);
    });
    afterAll(async () => {
      // Already stopped by the outage test when it ran.
      await minimal.core.stop().catch(() => undefined);
    });

    it("reads accounts, balances and a bare, signed statement in the contract's shapes", async () => {
      const accounts = await get('/ob/accounts', grantAtMinimal.headers());
      expect(accounts.body).toEqual({
        accounts: [
          {
            account_id: grantAtMinimal.accountIds[0],
            iban: customer.iban,
            currency: 'LYD',
            account_type: 'CURRENT',
            display_name: 'Minimal Customer',
          },
        ],
      });
      const balances = await get(`/ob/accounts/${grantAtMinimal.accountIds[0]}/balances`, grantAtMinimal.headers());
      expect(balances.body.balances).toEqual([{ type: 'AVAILABLE', amount: 12_000, currency: 'LYD' }]);
      const statement = await get(
        `/ob/accounts/${grantAtMinimal.accountIds[0]}/transactions?fromDate=${today()}&toDate=${today()}T23:59:59Z`,
        grantAtMinimal.headers(),
      );
      expect(statement.body.transactions).toEqual([
        {
          transaction_id: minimal.core.entries(customer.iban)[0]!.id,
          booking_date: today(),
          amount: 345,
          currency: 'LYD',
          credit_debit_indicator: 'DEBIT',
          description: 'Groceries',
        },
      ]);
      // The core was asked for the window, with the gateway's internal key.
      const asked = minimal.core.calls.filter((c) => c.path === `/accounts/${customer.iban}/transactions`).at(-1)!;
      expect(asked.headers['x-service-internal-key']).toBe(minimal.internalKey);
    });

    it('gives CBS_ERROR when the core fails and CBS_TIMEOUT when it is down; nothing else changes', async () => {
      const balances = `/ob/accounts/${grantAtMinimal.accountIds[0]}/balances`;
      // Reads are retried once: both attempts fail.
      minimal.core.fail(
        { path: '/accounts/', kind: 'status', status: 500 },
        { path: '/accounts/', kind: 'status', status: 500 },
      );
      expectError(await get(balances, grantAtMinimal.headers()), 502, 'CBS_ERROR');
      minimal.core.fail(
        { path: '/accounts/', kind: 'status', status: 500 },
        { path: '/accounts/', kind: 'status', status: 500 },
      );
      expectError(await get('/ob/accounts', grantAtMinimal.headers()), 502, 'CBS_ERROR');
      // The core is back: the same token and consent work as before.
      expect((await get(balances, grantAtMinimal.headers())).body.balances[0].amount).toBe(12_000);

      await minimal.core.stop();
      expectError(await get(balances, grantAtMinimal.headers()), 503, 'CBS_TIMEOUT');
      expectError(
        await get(`/ob/accounts/${grantAtMinimal.accountIds[0]}/transactions`, grantAtMinimal.headers()),
        503,
        'CBS_TIMEOUT',
      );
      const consent = await call(base, 'GET', `/ob/consents/${grantAtMinimal.consentId}`, {
        headers: bearer(tpp.tppAccessToken),
      });
      expect(consent.body).toMatchObject({ status: 'AUTHORISED', revoked_by: null });
      expect(
        await t.platform.db
          .knex('auth.credentials')
          .where({ owner_id: grantAtMinimal.consentId })
          .whereNotNull('revoked_at'),
      ).toEqual([]);
    });
  });
});
