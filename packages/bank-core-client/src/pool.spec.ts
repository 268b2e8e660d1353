import { createLogger } from '@gateway/kernel';
import { assertSameWorld, BankCorePool, type CoreAddress } from './index';
import { startMinimalCore, type MinimalCore } from './testing/minimal-core';

/** The one place that hands out core clients: the world decides the core, and no address can route test money live. */
describe('BankCorePool by world', () => {
  const logger = createLogger('test', 'silent');
  const iban = 'LY83002048000020100120361';
  let live: MinimalCore;
  let sandbox: MinimalCore;
  let builtIn: MinimalCore;
  let pool: BankCorePool;
  let bank: CoreAddress;

  beforeAll(async () => {
    live = await startMinimalCore({ internalKey: 'live-key-0123456789abcdef' });
    sandbox = await startMinimalCore({ internalKey: 'sandbox-key-0123456789abc' });
    builtIn = await startMinimalCore({ internalKey: 'builtin-key-0123456789abc' });
    for (const core of [live, sandbox, builtIn])
      core.openAccount(iban, { customerRef: 'c1', otp: '111111', balance: 1_000 });
    pool = new BankCorePool({
      timeoutMs: 2_000,
      attempts: 1,
      budgetMs: 2_000,
      production: false,
      // The minimal cores listen on loopback.
      egress: { privateTargets: true },
      logger,
      testCores: { core: () => ({ baseUrl: builtIn.url, internalKey: 'builtin-key-0123456789abc' }) },
    });
    bank = { handle: 'bank1', institutionCode: '002', coreBaseUrl: live.url, internalKey: 'live-key-0123456789abcdef' };
  });
  afterAll(async () => {
    await Promise.all([live, sandbox, builtIn].map((core) => core?.stop()));
  });

  const callsOf = () => [live.calls.length, sandbox.calls.length, builtIn.calls.length];

  it('a test client of a bank without a sandbox core calls the built-in test bank, never the live core', async () => {
    const before = callsOf();
    const client = pool.for(bank, 'test');
    expect(client.world).toBe('test');
    await client.getAccount(iban);
    expect(callsOf()).toEqual([before[0], before[1], before[2]! + 1]);
  });

  it('a test client of a bank with a sandbox core calls it, with the sandbox key; a live client calls the live core', async () => {
    const withSandbox = { ...bank, sandboxCoreBaseUrl: sandbox.url, sandboxInternalKey: 'sandbox-key-0123456789abc' };
    const before = callsOf();
    await pool.for(withSandbox, 'test').getAccount(iban);
    expect(callsOf()).toEqual([before[0], before[1]! + 1, before[2]]);
    const live1 = pool.for(withSandbox, 'live');
    expect(live1.world).toBe('live');
    await live1.getAccount(iban);
    expect(callsOf()).toEqual([before[0]! + 1, before[1]! + 1, before[2]]);
  });

  it('refuses a sandbox core that is the live core (INTERNAL_ERROR), and calls nothing', () => {
    const before = callsOf();
    expect(() =>
      pool.for(
        { ...bank, sandboxCoreBaseUrl: `${live.url}/`, sandboxInternalKey: 'sandbox-key-0123456789abc' },
        'test',
      ),
    ).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    expect(callsOf()).toEqual(before);
  });

  it('assertSameWorld refuses a client of another world than the object (the check where money moves)', () => {
    const testClient = pool.for(bank, 'test');
    const liveClient = pool.for(bank, 'live');
    expect(() => assertSameWorld(liveClient, { livemode: false }, 'debit ops_1', logger)).toThrow(
      expect.objectContaining({ code: 'INTERNAL_ERROR' }),
    );
    expect(() => assertSameWorld(testClient, { livemode: true }, 'debit ops_2', logger)).toThrow(
      expect.objectContaining({ code: 'INTERNAL_ERROR' }),
    );
    expect(() => assertSameWorld(testClient, { livemode: false }, 'debit ops_3', logger)).not.toThrow();
    expect(() => assertSameWorld(liveClient, { livemode: true }, 'debit ops_4', logger)).not.toThrow();
  });

  it('without PRIVATE_TARGETS no registered core on loopback is called, live or sandbox; the built-in test bank still is', async () => {
    const closed = new BankCorePool({
      timeoutMs: 2_000,
      attempts: 3,
      budgetMs: 2_000,
      production: false,
      egress: { privateTargets: false },
      logger,
      testCores: { core: () => ({ baseUrl: builtIn.url, internalKey: 'builtin-key-0123456789abc' }) },
    });
    const withSandbox = { ...bank, sandboxCoreBaseUrl: sandbox.url, sandboxInternalKey: 'sandbox-key-0123456789abc' };
    const before = callsOf();
    for (const client of [closed.for(withSandbox, 'live'), closed.for(withSandbox, 'test')])
      await expect(client.getAccount(iban)).rejects.toMatchObject({
        code: 'CBS_TIMEOUT',
        reason: 'unreachable',
        attempts: 1,
        detail: expect.stringContaining('target refused: not a public address'),
      });
    expect(callsOf()).toEqual(before);
    await closed.for(bank, 'test').getAccount(iban);
    expect(callsOf()).toEqual([before[0], before[1], before[2]! + 1]);
  });
});
