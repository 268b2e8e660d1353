import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import { SERVICE_ENV, startDeployment, TIMINGS, type Deployment } from '../chaos/deployment';
import { freePort, ServiceProcess } from '../launcher/service-process';
import type { Layout } from './settings';

/** NODE_OPTIONS that load the probe (probe.js): samples into `dir` when given; the orphan watch always. */
export const probeEnv = (dir?: string): Record<string, string> => ({
  NODE_OPTIONS: `--expose-gc --require ${join(__dirname, 'probe.js')}`,
  SOAK_PARENT_PID: String(process.pid),
  ...(dir ? { SOAK_PROBE_DIR: dir } : {}),
});

/**
 * The platform a soak drives, with the probe in every process: the split layout is the chaos
 * run's (one process per service), the one-process layout is `npm start` (platform/src/main.ts)
 * on the same database, RabbitMQ, timings and limits, started and stopped the same way.
 */
export async function startSoakDeployment(
  layout: Layout,
  options: { databaseUrl: string; amqpUrl: string; env: Record<string, string>; onPlanned(d: Deployment): void },
): Promise<Deployment> {
  if (layout === 'split') return startDeployment({ replicas: 1, ...options });
  const [rest, router] = [await freePort(), await freePort()];
  const adminKey = newSecret('adm_');
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-soak-'));
  const platform = new ServiceProcess(
    {
      name: 'platform',
      service: 'platform',
      entry: 'platform/src/main.ts',
      env: { REST_PORT: String(rest), ROUTER_PORT: String(router), ...SERVICE_ENV.router },
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
