import { createLogger } from '@gateway/kernel';
import { startDemo } from '@gateway/platform';
import { runMandateWalkthrough } from '../../scripts/mandate-walkthrough';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * `npm run demo:mandates` as a new user runs it against `npm start` (issue 12 "Done when"): a demo
 * mandate confirmed on its page in Chromium, charged in two periods (the test clock), the second
 * charge of one period refused; then a settlement cycle whose positions sum to zero, each bank's
 * settlement account moved once by its net.
 */
describe('mandate walkthrough on the demo data', () => {
  let t: TestPlatform;
  let demo: Awaited<ReturnType<typeof startDemo>>;

  beforeAll(async () => {
    t = await startTestPlatform({
      env: { SANDBOX_BANKS: 'on', SANDBOX_PORT_BASE: '0', SETTLEMENT_INTERVAL_SECONDS: '0' },
    });
    demo = await startDemo(t.platform, { portBase: 0, logger: createLogger('walkthrough', 'silent') });
  });
  afterAll(async () => {
    await demo?.stop();
    await t?.stop();
  });

  it('in test mode: confirms in Chromium, charges in two periods, refuses a second charge in one, and settles to zero at test cores only', async () => {
    const lines: string[] = [];
    const result = await runMandateWalkthrough({
      demo: { ...demo.file, admin_key: t.adminKey },
      log: (line) => lines.push(line),
    });
    expect(result.pageStatus).toBe('ACTIVE');
    expect(result.charges.map((c) => c.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(result.charges[0]!.periodStart).not.toBe(result.charges[1]!.periodStart);
    expect(result.refusal).toEqual({ status: 422, code: 'MANDATE_LIMIT_EXCEEDED' });
    const { positions } = result.settlement;
    expect(positions.map((p) => [p.bank, p.net]).sort()).toEqual([
      ['atlas', 25_000],
      ['oasis', -25_000],
    ]);
    // A test cycle: booked at the test cores, so the live settlement accounts never move.
    for (const position of positions) expect(position.moved).toBe(0);
    expect(lines.filter((line) => line.startsWith('\n$ curl')).length).toBeGreaterThanOrEqual(8);
  });
});
