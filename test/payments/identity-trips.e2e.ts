import { bearer, FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Identity once per authorization (issue 26, item 2): a checkout authorization asks the identity
 * registry once, through the router, for the payer's routing, their bank's and an OTP check taken
 * for that customer; the check is given back later (riding on the next take, or in a batch of its
 * own). Counted where the calls arrive: each subgraph's requests (/metrics,
 * subgraph_request_duration_seconds by operation), and the router's by operation name.
 */
describe('trips to the identity registry per checkout authorization', () => {
  /** Service operations that reach the identity registry, by the names the payments service gives them. */
  const IDENTITY_OPERATIONS = [
    'AliasRouting',
    'TakeOtpAttempt',
    'TakePayerOtpAttempt',
    'TakePayerOtpAttemptWithBank',
    'SettleOtpAttempts',
  ];

  /** Counts of a Prometheus histogram's requests by operation label. */
  const countsOf = async (url: string, metric: string): Promise<Record<string, number>> => {
    const text = await (await fetch(`${url.replace(/\/graphql$/, '')}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const match of text.matchAll(new RegExp(`^${metric}_count\\{([^}]*)\\} (\\d+)$`, 'gm'))) {
      const operation = /operation="([^"]*)"/.exec(match[1]!)?.[1] ?? '';
      counts[operation] = (counts[operation] ?? 0) + Number(match[2]);
    }
    return counts;
  };
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);
  const less = (after: Record<string, number>, before: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(after)
        .map(([name, n]) => [name, n - (before[name] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );

  /** What reached identity, banks and the router's identity operations while `work` ran. */
  const tripsDuring = async (t: TestPlatform, work: () => Promise<unknown>) => {
    const snapshot = async () => ({
      identity: await countsOf(t.platform.subgraphUrls.identity!, 'subgraph_request_duration_seconds'),
      banks: await countsOf(t.platform.subgraphUrls.banks!, 'subgraph_request_duration_seconds'),
      router: await countsOf(t.platform.routerUrl, 'router_request_duration_seconds'),
    });
    const before = await snapshot();
    await work();
    const after = await snapshot();
    const router = less(after.router, before.router);
    return {
      identity: total(less(after.identity, before.identity)),
      banks: total(less(after.banks, before.banks)),
      identityOperations: Object.fromEntries(
        Object.entries(router).filter(([name]) => IDENTITY_OPERATIONS.includes(name)),
      ),
    };
  };

  /** One authorization, and the give-back of its accepted check (in a batch of its own within 50 ms: no take comes). */
  const authorization = (t: TestPlatform, session: string, payer: string, otp: string) =>
    tripsDuring(t, async () => {
      const paid = await t.rest('POST', `/pay/${session}/authorize`, {
        body: { payer: { type: 'alias', value: payer }, otp },
      });
      expect([paid.status, paid.body.status]).toEqual([200, 'COMPLETED']);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });

  describe('with the routing caches as in production', () => {
    let t: TestPlatform;
    let bank: PaymentBank;
    let merchant: { apiKey: string };
    let payer: Customer;
    let payee: Customer;
    const create = async (apiKey = merchant.apiKey, destination = payee.alias) => {
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(apiKey),
        body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: destination } },
      });
      expect(created.status).toBe(201);
      return created.body.session_id as string;
    };

    beforeAll(async () => {
      t = await startTestPlatform({
        paymentsEngine: { ...FAST_ENGINE, bankRoutingCacheMs: 60_000, aliasRoutingCacheMs: 1_000 },
      });
      bank = await startPaymentBank(t);
      merchant = await t.seed.createMerchant({ name: 'Trips Shop' });
      payer = await bank.customer({ balance: 1_000_000 });
      payee = await bank.customer({ balance: 0 });
    });
    afterAll(async () => {
      await bank?.sandbox.stop();
      await t?.stop();
    });

    it("asks identity alone once the bank is cached, even for a payer seen for the first time (the session's creation cached the payee's bank, the payer's too)", async () => {
      // Identity twice in all: the payer's take, then the give-back of the accepted check.
      for (let time = 0; time < 2; time += 1)
        expect(await authorization(t, await create(), payer.alias, payer.otp)).toEqual({
          identity: 2,
          banks: 0,
          identityOperations: { TakePayerOtpAttempt: 1, SettleOtpAttempts: 1 },
        });
    });

    it('a test payer in the test world: the check alone (the directory answers the payer)', async () => {
      const testMerchant = await t.seed.createMerchant({ name: 'Trips Test Shop', mode: 'test' });
      const session = await create(testMerchant.apiKey);
      expect(await authorization(t, session, `success@${bank.handle}`, '123456')).toEqual({
        identity: 2,
        banks: 0,
        identityOperations: { TakeOtpAttempt: 1, SettleOtpAttempts: 1 },
      });
    });
  });

  describe('with every routing answer asked afresh (caches off)', () => {
    let t: TestPlatform;
    let bank: PaymentBank;

    beforeAll(async () => {
      t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
      bank = await startPaymentBank(t);
    });
    afterAll(async () => {
      await bank?.sandbox.stop();
      await t?.stop();
    });

    it("asks identity once, with the bank's routing in the same call", async () => {
      const merchant = await t.seed.createMerchant({ name: 'Uncached Shop' });
      const payer = await bank.customer({ balance: 1_000_000 });
      const payee = await bank.customer({ balance: 0 });
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      });
      const paid = await authorization(t, created.body.session_id, payer.alias, payer.otp);
      expect(paid.identity).toBe(2);
      expect(paid.identityOperations).toEqual({ TakePayerOtpAttemptWithBank: 1, SettleOtpAttempts: 1 });
    });
  });
});
