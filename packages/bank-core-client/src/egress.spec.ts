import dns, { type LookupAddress } from 'node:dns';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { createLogger } from '@gateway/kernel';
import { closeBankCoreAgent, createBankCoreClient, type BankCoreClientOptions } from './index';
import { startMinimalCore, type MinimalCore } from './testing/minimal-core';

/** A DNS name that resolves to loopback (stubbed below): it passes the registration check, only the connect-time guard can stop it. */
const REBOUND = 'core.rebound.test';
const REFUSED = 'target refused: not a public address';

/**
 * The bank-core client under an egress policy (PRIVATE_TARGETS), as the gateway's services use it:
 * a core on loopback named by `localhost` or by a name that resolves to 127.0.0.1 is never
 * connected to, so no byte (neither the internal key nor the call) reaches it; the call fails as
 * an unreachable core does, at once and without retries.
 */
describe('bank-core client: egress guard', () => {
  const iban = 'LY83002048000020100120361';
  const key = 'egress-key-0123456789abcdef';
  let core: MinimalCore;
  /** A TCP relay in front of the core on 127.0.0.1: counts every connection and byte that reaches loopback. */
  let relay: Server;
  let port: number;
  let connections = 0;
  let bytes = 0;
  let lookupSpy: jest.SpyInstance;

  beforeAll(async () => {
    core = await startMinimalCore({ internalKey: key });
    core.openAccount(iban, { customerRef: 'c1', otp: '111111', balance: 1_000 });
    const coreUrl = new URL(core.url);
    relay = createServer((socket) => {
      connections += 1;
      socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
      const upstream = connect(Number(coreUrl.port), coreUrl.hostname);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => relay.once('listening', resolve));
    port = (relay.address() as AddressInfo).port;
    const realLookup = dns.lookup;
    lookupSpy = jest.spyOn(dns, 'lookup').mockImplementation(((
      hostname: string,
      options: unknown,
      callback: (error: Error | null, addresses: LookupAddress[]) => void,
    ) => {
      if (hostname !== REBOUND) return (realLookup as (...args: unknown[]) => void)(hostname, options, callback);
      process.nextTick(() => callback(null, [{ address: '127.0.0.1', family: 4 }]));
    }) as unknown as typeof dns.lookup);
  });
  afterAll(async () => {
    lookupSpy.mockRestore();
    await closeBankCoreAgent();
    await new Promise((resolve) => relay.close(resolve));
    await core.stop();
  });

  const client = (baseUrl: string, overrides: Partial<BankCoreClientOptions> = {}) =>
    createBankCoreClient({
      bankHandle: 'oasis:test',
      baseUrl,
      internalKey: key,
      timeoutMs: 2_000,
      retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
      totalBudgetMs: 4_000,
      production: false,
      logger: createLogger('test', 'silent'),
      ...overrides,
    });

  it.each([
    ['localhost, judged before any connection', () => `http://localhost:${port}/core`],
    ['a name resolving to 127.0.0.1, judged at the guarded lookup', () => `http://${REBOUND}:${port}/core`],
    ['the loopback literal', () => `http://127.0.0.1:${port}/core`],
  ])(
    'without PRIVATE_TARGETS, a core at %s gets nothing: the call fails as an unreachable core, once',
    async (_what, url) => {
      const before = { connections, bytes, calls: core.calls.length };
      const verify = client(url(), { egress: { privateTargets: false } }).verifyCustomer({
        customerRef: 'c1',
        otp: '111111',
      });
      await expect(verify).rejects.toMatchObject({
        code: 'CBS_TIMEOUT',
        reason: 'unreachable',
        attempts: 1,
        detail: `bank core oasis:test verifyCustomer: ${REFUSED} (1 attempt)`,
      });
      expect({ connections, bytes, calls: core.calls.length }).toEqual(before);
    },
  );

  it('cloud metadata is refused even with PRIVATE_TARGETS', async () => {
    const metadata = client('http://169.254.169.254/latest/meta-data', { egress: { privateTargets: true } });
    await expect(metadata.getAccount(iban)).rejects.toMatchObject({ code: 'CBS_TIMEOUT', attempts: 1 });
  });

  it('with PRIVATE_TARGETS the same names reach the core (so the refusals above are the guard, not the setup)', async () => {
    const before = connections;
    for (const url of [`http://localhost:${port}`, `http://${REBOUND}:${port}`]) {
      const account = await client(url, { egress: { privateTargets: true } }).getAccount(iban);
      expect(account).toMatchObject({ iban, balance: 1_000 });
    }
    expect(connections).toBeGreaterThan(before);
    expect(core.calls.at(-1)?.headers['x-service-internal-key']).toBe(key);
  });
});
