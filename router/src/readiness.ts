import type { FastifyInstance } from 'fastify';
import { timeoutSignal } from '@gateway/kernel';
import type { SubgraphEndpoint } from './compose';

export interface ReadinessOptions {
  /** Whether the router's database answers. */
  databaseReady(): Promise<boolean>;
  /** Each answers GET /healthz on its own origin when up. */
  subgraphs: Pick<SubgraphEndpoint, 'name' | 'url'>[];
  /** More checks from whoever runs the router (the launcher: demo seeded, not stopping). */
  readinessChecks?: () => Record<string, boolean>;
}

/** How long /readyz waits for one subgraph's /healthz before counting it down. */
const SUBGRAPH_HEALTH_TIMEOUT_MS = 2000;

/**
 * The edge's readiness stage: /healthz says the process answers; /readyz says whether it can serve,
 * every check by name (the database, each subgraph, the runner's own), 503 while any fails.
 */
export function useReadiness(app: FastifyInstance, options: ReadinessOptions): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, boolean> = { database: await options.databaseReady(), ...options.readinessChecks?.() };
    await Promise.all(
      options.subgraphs.map(async ({ name, url }) => {
        const deadline = timeoutSignal(SUBGRAPH_HEALTH_TIMEOUT_MS);
        checks[name] = await fetch(new URL('/healthz', url), { signal: deadline.signal })
          .then(
            (r) => r.ok,
            () => false,
          )
          .finally(deadline.clear);
      }),
    );
    const ready = Object.values(checks).every(Boolean);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });
}
