import type { Knex } from '@mikro-orm/knex';

/**
 * The database pools this process has open, summed: connections in use, idle, and callers waiting
 * for one (issue 52: a soak samples them in every process, and a pool that keeps callers waiting
 * while the load is steady is one that does not keep up). Published under a registered symbol on
 * globalThis as well, so a probe loaded into the process (scripts/soak/probe.js) reads them without
 * importing anything of the platform.
 */
export interface PoolStats {
  used: number;
  free: number;
  waiting: number;
}

/** What tarn (knex's pool) answers. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

const POOL_STATS_KEY = Symbol.for('gateway.db.poolStats');
const open = new Set<Knex>();

export function poolStats(): PoolStats {
  const stats: PoolStats = { used: 0, free: 0, waiting: 0 };
  for (const knex of open) {
    const pool = (knex.client as { pool?: TarnPool }).pool;
    if (!pool) continue;
    stats.used += pool.numUsed();
    stats.free += pool.numFree();
    stats.waiting += pool.numPendingAcquires();
  }
  return stats;
}

/** Counts `knex`'s pool in poolStats until the returned function is called (at its close). */
export function countPool(knex: Knex): () => void {
  open.add(knex);
  (globalThis as Record<symbol, unknown>)[POOL_STATS_KEY] = poolStats;
  return () => void open.delete(knex);
}
