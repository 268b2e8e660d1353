import { createLogger } from '@gateway/kernel';
import { startDemo } from '@gateway/platform';
import { runOpenBankingWalkthrough } from '../../scripts/open-banking-walkthrough';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * `npm run demo:open-banking` as a new user runs it against `npm start`: the seeded demo TPP and
 * customer only, the consent approved in Chromium, data read, a refresh, a DELETE.
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

  it('goes from consent to data to revocation with the demo TPP and a demo customer', async () => {
    const lines: string[] = [];
    const result = await runOpenBankingWalkthrough({ demo: demo.file, log: (line) => lines.push(line) });

    const customer = demo.file.customers[0]!;
    expect(result.accounts).toEqual([expect.objectContaining({ iban: customer.iban, currency: 'LYD', account_type: 'CURRENT' })]);
    expect(result.balances).toMatchObject({ balances: [{ type: 'AVAILABLE', amount: customer.balance, currency: 'LYD' }] });
    expect(result.transactions).toHaveProperty('transactions');
    expect(result.refusals).toEqual({
      'rotated access token': { status: 401, code: 'TOKEN_REVOKED' },
      'access token after DELETE': { status: 401, code: 'TOKEN_REVOKED' },
      'refresh token after DELETE': { status: 401, code: 'CONSENT_REVOKED' },
    });
    // Each step is shown as the curl a user can paste.
    expect(lines.filter((line) => line.startsWith('\n$ curl')).length).toBeGreaterThanOrEqual(9);
  });
});
