import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * RATE_LIMIT_STORE=postgres: the router's counters live in router.rate_limits, so every router on
 * the database counts together (issue 17 item 7); the default keeps them in memory.
 */
describe('where the limit counters live', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform({
      env: { RATE_LIMIT_STORE: 'postgres' },
      rateLimits: { identity_resolve: { points: 3 } },
    });
  });
  afterAll(() => t.stop());

  it('counts in PostgreSQL: a second router on the same database would see the same remaining points', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const answer = await fetch(`${t.platform.restUrl}/v1/identity/resolve?alias=nobody${i}`, {
        headers: { 'x-forwarded-for': '203.0.113.77' },
      });
      remaining.push(`${answer.status} ${answer.headers.get('x-ratelimit-remaining')}`);
    }
    expect(remaining).toEqual(['404 2', '404 1', '404 0', '429 0']);
    const rows = await t.platform.db
      .knex('router.rate_limits')
      .where('key', 'like', 'identity_resolve%')
      .select('key', 'points');
    expect(rows.map((row: { points: number }) => Number(row.points))).toContain(3);
  });
});
