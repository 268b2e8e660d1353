import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import { startDeployment, TIMINGS, type Deployment } from '../chaos/deployment';
import { freePort, ServiceProcess } from '../launcher/service-process';
import type { Layout } from './settings';

/** NODE_OPTIONS that load the probe (probe.js): samples into `dir` when given; the orphan watch always. */
export const probeEnv = (dir?: string): Record<string, string> => ({
  // SOAK_NODE_OPTIONS: more for a diagnosing run, e.g. `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=/tmp/snapshots`.
  NODE_OPTIONS: `--expose-gc --require ${join(__dirname, 'probe.js')} ${process.env.SOAK_NODE_OPTIONS ?? ''}`.trim(),
  SOAK_PARENT_PID: String(process.pid),
  ...(dir ? { SOAK_PROBE_DIR: dir } : {}),
});

/**
 * The router's limits, raised: one client and one TPP send the whole load (the chaos run raises
 * session_create, write and read; a soak at 40 % of a fast machine's capacity also passes the
 * 100 payment orders per minute and the 30 token requests a TPP may make, and its orders would
 * wait on 429s).
 */
const ROUTER_ENV = {
  RATE_LIMITS: JSON.stringify(
    Object.fromEntries(
      ['session_create', 'write', 'read', 'payment_order_create', 'ob_token'].map((name) => [name, { points: 1e9 }]),
    ),
  ),
};

/**
 * The platform a soak drives, with the probe in every process: the split layout is the chaos
 * run's (one process per service), the one-process layout is `npm start` (platform/src/main.ts)
 * on the same database, RabbitMQ, timings and limits, started and stopped the same way.
 */
export async function startSoakDeployment(
  layout: Layout,
  options: { databaseUrl: string; amqpUrl: string; env: Record<string, string>; onPlanned(d: Deployment): void },
): Promise<Deployment> {
  if (layout === 'split') return startDeployment({ replicas: 1, ...options, serviceEnv: { router: ROUTER_ENV } });
  const [rest, router] = [await freePort(), await freePort()];
  const adminKey = newSecret('adm_');
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-soak-'));
  const platform = new ServiceProcess(
    {
      name: 'platform',
      service: 'platform',
      entry: 'platform/src/main.ts',
      env: { REST_PORT: String(rest), ROUTER_PORT: String(router), ...ROUTER_ENV },
      port: rest,
      readyUrl: `http://127.0.0.1:${rest}/readyz`,
    },
    {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: options.databaseUrl,
      AMQP_URL: options.amqpUrl,
      PLATFORM_SECRET: newSecret('pls_'),
      ADMIN_KEY: adminKey,
      // The run registers its own banks (the soak's cores); no demo.
      SANDBOX_BANKS: 'off',
      DATA_DIR: dataDir,
      SHUTDOWN_DRAIN_SECONDS: '0',
      ...TIMINGS,
      ...options.env,
    },
  );
  const deployment: Deployment = {
    restUrl: `http://127.0.0.1:${rest}`,
    adminKey,
    instances: [platform],
    of: () => [platform],
    stop: async () => {
      await platform.terminate(10_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  options.onPlanned(deployment);
  await platform.start();
  return deployment;
}
