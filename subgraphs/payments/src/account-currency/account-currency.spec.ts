import { BankCorePool, type CoreAddress } from '@gateway/bank-core-client';
import { startMinimalCore, type MinimalCore } from '@gateway/bank-core-client/testing';
import { createLogger } from '@gateway/kernel';
import { AccountCurrencies } from './account-currency';

/** What accounts are held in, asked of their cores once and kept; anything the core cannot say passes. */
describe('AccountCurrencies', () => {
  const logger = createLogger('test', 'silent');
  const lyd = 'LY83002048000020100120361';
  const usd = 'LY56002048000020100120362';
  let live: MinimalCore;
  let builtIn: MinimalCore;
  let pool: BankCorePool;
  let bank: CoreAddress;

  const currencies = (settings: Partial<{ cacheMs: number; unknownMs: number; waitMs: number }> = {}) =>
    new AccountCurrencies(pool, { cacheMs: 60_000, unknownMs: 60_000, waitMs: 1_000, ...settings }, logger);
  const reads = (core: MinimalCore, iban: string) =>
    core.calls.filter((call) => call.method === 'GET' && call.path === `/accounts/${iban}`).length;

  beforeAll(async () => {
    live = await startMinimalCore({ internalKey: 'live-key-0123456789abcdef' });
    builtIn = await startMinimalCore({ internalKey: 'builtin-key-0123456789abc' });
    for (const core of [live, builtIn]) {
      core.openAccount(lyd, { customerRef: 'c1', otp: '111111', balance: 1_000 });
      core.openAccount(usd, { customerRef: 'c2', otp: '222222', balance: 1_000, currency: 'USD' });
    }
    pool = new BankCorePool({
      timeoutMs: 2_000,
      attempts: 1,
      budgetMs: 2_000,
      production: false,
      egress: { privateTargets: true },
      logger,
      testCores: { core: () => ({ baseUrl: builtIn.url, internalKey: 'builtin-key-0123456789abc' }) },
    });
    bank = { handle: 'bank1', institutionCode: '002', coreBaseUrl: live.url, internalKey: 'live-key-0123456789abcdef' };
  });
  afterAll(async () => {
    await Promise.all([live, builtIn].map((core) => core?.stop()));
  });

  it('refuses another currency with CURRENCY_MISMATCH naming both; the same currency passes; the core is asked once per account', async () => {
    const known = currencies();
    const payee = { bank, iban: lyd, livemode: true, role: 'payee' as const, name: 'layla' };
    const refused = await known.refusal(payee, { what: 'session', currency: 'USD' });
    expect(refused).toMatchObject({
      code: 'CURRENCY_MISMATCH',
      detail: 'session currency USD, payee account layla is in LYD',
    });
    expect(refused!.extensions.status).toBe(422);
    await expect(known.assertHeldIn(payee, { what: 'session', currency: 'LYD' })).resolves.toBeUndefined();
    expect(await known.of({ bank, iban: usd, livemode: true })).toBe('USD');
    // Cached: an account's currency does not change.
    expect(await known.of({ bank, iban: lyd.toLowerCase(), livemode: true })).toBe('LYD');
    expect([reads(live, lyd), reads(live, usd)]).toEqual([1, 1]);
  });

  it('a core that cannot say (no currency in its answer, a 5xx, an unknown account) leaves the currency unknown: nothing is refused', async () => {
    const unknown = currencies({ unknownMs: 0 });
    live.fail({
      path: `/accounts/${lyd}`,
      kind: 'status',
      status: 200,
      body: JSON.stringify({ iban: lyd, balance: 5 }),
    });
    expect(await unknown.refusal({ bank, iban: lyd, livemode: true, role: 'payee', name: 'x' }, priced('USD'))).toBe(
      null,
    );
    live.fail({ path: `/accounts/${lyd}`, kind: 'status', status: 503 });
    expect(await unknown.of({ bank, iban: lyd, livemode: true })).toBe(null);
    expect(await unknown.of({ bank, iban: 'LY16002048000020100999999', livemode: true })).toBe(null);
    // Unknown is not kept past unknownMs: the core, answering again, is asked again.
    expect(await unknown.of({ bank, iban: lyd, livemode: true })).toBe('LYD');
  });

  it('a slow core is waited for at most waitMs, and not asked again while its answer is awaited or unknown', async () => {
    const slow = currencies({ waitMs: 150 });
    const fresh = 'LY29002048000020100120363';
    live.openAccount(fresh, { customerRef: 'c3', otp: '333333', balance: 1, currency: 'EUR' });
    live.fail({ path: `/accounts/${fresh}`, kind: 'hang' });
    const started = Date.now();
    expect(await slow.of({ bank, iban: fresh, livemode: true })).toBe(null);
    expect(Date.now() - started).toBeLessThan(1_000);
    // The next ask joins the read in flight (it times out after 2 s; unknown is then kept unknownMs).
    const before = reads(live, fresh);
    expect(await slow.of({ bank, iban: fresh, livemode: true })).toBe(null);
    expect(reads(live, fresh)).toBe(before);
  });

  it("the built-in test bank is never asked (its accounts open in a read's currency); a bank's own sandbox core is", async () => {
    const test = currencies();
    const before = builtIn.calls.length;
    expect(await test.of({ bank, iban: lyd, livemode: false })).toBe(null);
    expect(builtIn.calls.length).toBe(before);
    const withSandbox = { ...bank, sandboxCoreBaseUrl: builtIn.url, sandboxInternalKey: 'builtin-key-0123456789abc' };
    expect(await test.of({ bank: withSandbox, iban: usd, livemode: false })).toBe('USD');
    expect(builtIn.calls.length).toBe(before + 1);
  });
});

const priced = (currency: 'LYD' | 'USD' | 'EUR') => ({ what: 'session', currency });
