import { openDatabase } from './database';
import { poolStats } from './pool-stats';

/** Issue 52: every process's pool in use, idle and waiting, for the soak's probe (scripts/soak/probe.js). */
describe('pool stats', () => {
  it('counts connections in use and callers waiting, and stops counting a pool once it is closed', async () => {
    const before = poolStats();
    // One connection: a second caller waits while a transaction holds it (PGlite's pool is one connection anyway).
    const db = await openDatabase({ url: process.env.DATABASE_URL, poolSize: 1 });
    const trx = await db.knex.transaction();
    await trx.raw('select 1');
    const waiting = db.knex.raw('select 2').then(() => undefined); // a builder runs once awaited
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(poolStats()).toEqual({ used: before.used + 1, free: before.free, waiting: before.waiting + 1 });
    // What the probe reads: the same function under a registered symbol, nothing imported.
    const published = (globalThis as Record<symbol, unknown>)[Symbol.for('gateway.db.poolStats')] as () => unknown;
    expect(published()).toEqual(poolStats());
    await trx.commit();
    await waiting;
    expect(poolStats()).toEqual({ used: before.used, free: before.free + 1, waiting: before.waiting });
    await db.close();
    expect(poolStats()).toEqual(before);
  });
});
