import { startTestPlatform, type TestPlatform } from '../support/platform';

// The driver as knex loads it in this test's module registry: every statement the platform sends
// (BEGIN and COMMIT included, each a round trip) goes through this method, counted by its text.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- patched before the platform first uses it
const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };

const SETTLE_MS = 3_000;
const WINDOW_MS = 6_000;
/** Issue 53: an idle process, every job together (relays, webhook worker, recovery, expiry). */
const MOST_PER_SECOND = 2;

const byText = new Map<string, number>();
let total = 0;
const query = pg.Client.prototype.query;

/**
 * Issue 53 item 3, jobs sleep when idle: the whole platform in one process (as `npm start`),
 * nothing happening, sends at most 2 statements a second, on PGlite and on PostgreSQL
 * (DATABASE_URL). Its jobs wake by NOTIFY or in process, and their periodic checks share one
 * statement (the heartbeat); before, the relays polled every 100 ms (37 statements a second).
 */
describe('an idle platform', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    pg.Client.prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
      const [config] = args;
      const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '?');
      const shape = text.replace(/\s+/g, ' ').slice(0, 160);
      byText.set(shape, (byText.get(shape) ?? 0) + 1);
      total += 1;
      return query.apply(this, args);
    };
    t = await startTestPlatform();
    // Something for the jobs to know of: a bank and a merchant with a webhook URL (their events are relayed).
    await t.seed.registerBank();
    await t.seed.createMerchant({ webhook_url: 'http://127.0.0.1:9/hook' });
  });
  afterAll(async () => {
    await t?.stop();
    pg.Client.prototype.query = query;
  });

  it(`sends at most ${MOST_PER_SECOND} statements a second, all its jobs together`, async () => {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const before = total;
    const textsBefore = new Map(byText);
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const perSecond = (total - before) / ((Date.now() - started) / 1000);
    const sent = [...byText]
      .map(([text, n]) => `${n - (textsBefore.get(text) ?? 0)} × ${text}`)
      .filter((line) => !line.startsWith('0 ×'));
    // The breakdown in the failure message: which job polls.
    if (perSecond > MOST_PER_SECOND)
      throw new Error(`${perSecond.toFixed(2)} statements a second while idle:\n${sent.join('\n')}`);
    expect(perSecond).toBeLessThanOrEqual(MOST_PER_SECOND);
  });
});
