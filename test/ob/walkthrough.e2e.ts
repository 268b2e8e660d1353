import { createLogger } from '@gateway/kernel';
import { startDemo } from '@gateway/platform';
import { runOpenBankingWalkthrough } from '../../scripts/open-banking-walkthrough';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * `npm run demo:open-banking` as a new user runs it against `npm start`: the seeded demo TPP and
 * customers only; the consent approved in Chromium, data read, a refresh, a DELETE; then a payment
 * order below the SCA limit (201) and one above it (202, SCA in Chromium), followed by a
 * subscription and reported by verified webhooks.
 */
describe('Open Banking walkthrough on the demo data', () => {
  let t: TestPlatform;
  let demo: Awaited<ReturnType<typeof startDemo>>;

  beforeAll(async () => {
    t = await startTestPlatform({ env: { SANDBOX_BANKS: 'on', SANDBOX_PORT_BASE: '0' } });
    demo = await startDemo(t.platform, { portBase: 0, logger: createLogger('walkthrough', 'silent') });
  });
  afterAll(async () => {
    await demo?.stop();
    await t?.stop();
  });

  it('goes from consent to data to revocation, then pays below and above the SCA limit, with the demo TPP and customers', async () => {
    const lines: string[] = [];
    const result = await runOpenBankingWalkthrough({ demo: demo.file, log: (line) => lines.push(line) });

    const customer = demo.file.customers[0]!;
    expect(result.accounts).toEqual([
      expect.objectContaining({ iban: customer.iban, currency: 'LYD', account_type: 'CURRENT' }),
    ]);
    expect(result.balances).toMatchObject({
      balances: [{ type: 'AVAILABLE', amount: customer.balance, currency: 'LYD' }],
    });
    expect(result.transactions).toHaveProperty('transactions');
    expect(result.refusals).toEqual({
      'rotated access token': { status: 401, code: 'TOKEN_REVOKED' },
      'access token after DELETE': { status: 401, code: 'TOKEN_REVOKED' },
      'refresh token after DELETE': { status: 401, code: 'CONSENT_REVOKED' },
    });
    const [small, large] = result.orders;
    expect(small).toMatchObject({ created: 201, status: 'COMPLETED' });
    expect(large).toMatchObject({ created: 202, status: 'COMPLETED' });
    expect(result.subscribed[0]).toBe('PENDING_SCA');
    expect(result.subscribed.at(-1)).toBe('COMPLETED');
    expect(new Set(result.subscribed).size).toBe(result.subscribed.length);
    expect(result.webhooks).toEqual(
      expect.arrayContaining([
        { event: 'consent.granted', id: expect.stringMatching(/^con_/) },
        { event: 'payment_order.completed', id: small!.id },
        { event: 'payment_order.pending_sca', id: large!.id },
        { event: 'payment_order.completed', id: large!.id },
      ]),
    );
    // Money moved: the payer paid both orders.
    const payer = demo.file.customers[0]!;
    const balance = await fetch(`${demo.banks[0]!.url}/accounts/${payer.iban}`, {
      headers: { 'x-service-internal-key': demo.file.banks[0]!.internal_key },
    });
    expect(((await balance.json()) as { balance: number }).balance).toBe(payer.balance - 2_500 - 150_000);
    // Each step is shown as the curl a user can paste.
    expect(lines.filter((line) => line.startsWith('\n$ curl')).length).toBeGreaterThanOrEqual(9);
  });
});
