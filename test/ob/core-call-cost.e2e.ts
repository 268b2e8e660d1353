import { startMinimalBank, type MinimalBank } from '../support/minimal-bank';
import { openBankingSeeds, type Grant } from '../support/open-banking';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const MAX_CORE_CALLS = 4;
const statements = (count: number, args = 'count: 500') =>
  Array.from({ length: count }, (_, i) => `t${i}: transactions(${args}) { transactionId }`).join(' ');

/**
 * Issue 28, item 3: nested fields that read a bank core are priced at the router (`@cost`), and
 * one request reads each account and statement once and makes at most
 * OB_MAX_CORE_CALLS_PER_REQUEST core calls. The core is a minimal one written from the spec,
 * which records every call it is asked.
 */
describe('Open Banking: bank-core calls are priced and capped per request', () => {
  let t: TestPlatform;
  let minimal: MinimalBank;
  let one: Grant;
  let three: Grant;

  /** The router's answer with its X-RateLimit-Remaining, and the calls the core received meanwhile. */
  async function query(grant: Grant, document: string) {
    const before = minimal.core.calls.length;
    const response = await fetch(t.platform.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...grant.headers() },
      body: JSON.stringify({ query: document }),
    });
    const body = (await response.json()) as {
      data?: unknown;
      errors?: Array<{ extensions?: { code?: string; detail?: string } }>;
    };
    // A call sent alongside the one refused may reach the core just after the answer: counted too (late calls over the cap would show).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const calls = minimal.core.calls
      .slice(before)
      .map((call) => `${call.method} ${call.path.replace(/LY\w+/, 'IBAN')}`);
    return { status: response.status, remaining: Number(response.headers.get('x-ratelimit-remaining')), body, calls };
  }

  beforeAll(async () => {
    t = await startTestPlatform({ env: { OB_MAX_CORE_CALLS_PER_REQUEST: String(MAX_CORE_CALLS) } });
    const ob = await openBankingSeeds(t);
    minimal = await startMinimalBank(t);
    await ob.enableOpenBanking(minimal.handle, minimal.bankKey);
    const tpp = await t.seed.registerTpp({ name: 'Cost App' });
    const customers = [await minimal.customer(), await minimal.customer(), await minimal.customer()];
    one = await ob.grant(tpp.tppAccessToken, minimal.handle, [
      { iban: customers[0]!.iban, bankHandle: minimal.handle },
    ]);
    three = await ob.grant(
      tpp.tppAccessToken,
      minimal.handle,
      customers.map(({ iban }) => ({ iban, bankHandle: minimal.handle })),
    );
  });
  afterAll(async () => {
    await minimal.core.stop();
    await t.stop();
  });

  it('charges the 29-alias statement query 30 read points, and asks the core once for the account and once for its statement', async () => {
    const first = await query(one, '{ obAccounts { accountId } }');
    expect(first.status).toBe(200);
    const aliased = await query(one, `{ obAccounts { accountId ${statements(29)} } }`);
    expect(aliased.body.errors).toBeUndefined();
    expect(first.remaining - aliased.remaining).toBe(30);
    expect(aliased.calls).toEqual(['GET /accounts/IBAN', 'GET /accounts/IBAN/transactions']);
    // Balances are core data too (issue 46: they had no @cost, so their aliases were free).
    const balances = await query(one, '{ obAccounts { a: balances { amount } b: balances { amount } } }');
    expect(balances.body.errors).toBeUndefined();
    expect(aliased.remaining - balances.remaining).toBe(3);
  });

  it('shares one read between root fields and aliases on the same account; another window is another read', async () => {
    const [accountId] = one.accountIds;
    const shared = await query(
      one,
      `{ obAccounts { accountId a: transactions(count: 1) { transactionId } } obAccountBalances(accountId: "${accountId}") { accountId }
         obAccountTransactions(accountId: "${accountId}", count: 2) { accountId } b: obAccountTransactions(accountId: "${accountId}", fromDate: "2020-01-01", toDate: "2020-01-31") { accountId } }`,
    );
    expect(shared.body.errors).toBeUndefined();
    expect(shared.calls.sort()).toEqual([
      'GET /accounts/IBAN',
      'GET /accounts/IBAN/transactions',
      'GET /accounts/IBAN/transactions',
    ]);
  });

  it(`refuses the read past ${MAX_CORE_CALLS} core calls in one request with RATE_LIMITED, before it reaches the core`, async () => {
    // Three accounts, each read and its statement read: six calls asked, four allowed.
    const over = await query(three, '{ obAccounts { accountId transactions { transactionId } } }');
    expect(over.body.errors?.map((error) => error.extensions?.code)).toContain('RATE_LIMITED');
    expect(over.body.errors?.find((error) => error.extensions?.code === 'RATE_LIMITED')?.extensions?.detail).toMatch(
      /more than 4 reads.*split it/,
    );
    expect(over.calls.length).toBeLessThanOrEqual(MAX_CORE_CALLS);
    // Under the cap the same consent reads fine: the accounts alone are three calls.
    const under = await query(three, '{ obAccounts { accountId } }');
    expect(under.body.errors).toBeUndefined();
    expect(under.calls).toHaveLength(3);
    // Different windows are different reads, each counted.
    const windows = await query(
      one,
      `{ obAccounts { ${Array.from({ length: 4 }, (_, i) => `w${i}: transactions(fromDate: "2021-0${i + 1}-01") { transactionId }`).join(' ')} } }`,
    );
    expect(windows.body.errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
    expect(windows.calls).toHaveLength(MAX_CORE_CALLS);
  });
});
