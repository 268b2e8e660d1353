import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import { startCluster } from '../cluster/cluster';
import type { ServiceProcess } from '../launcher/service-process';
import { SplitLayout, type ServiceName } from '../launcher/split-layout';

/** The platform the run drives: the split layout (one instance of each) or the cluster behind HAProxy. */
export interface Deployment {
  restUrl: string;
  /** The operator's key (banks, merchants and TPPs are registered with it). */
  adminKey: string;
  instances: ServiceProcess[];
  of(service: ServiceName): ServiceProcess[];
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  replicas: number;
  databaseUrl: string;
  amqpUrl: string;
  /**
   * Called with the deployment as soon as there is something to stop (the split layout before its
   * services start), so an aborted start is cleaned up too.
   */
  onPlanned(deployment: Deployment): void;
  /** Added to every platform process's environment (the soak run's probe: NODE_OPTIONS). */
  env?: Record<string, string>;
  /** A service's own variables instead of the run's (the soak's router limits). */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
}

export const TIMINGS = {
  LOG_LEVEL: 'error',
  // An unknown outcome is given up on (documented "needs attention") after a minute, so the run reaches quiet.
  PAYMENT_OUTCOME_DEADLINE_SECONDS: '60',
  RAIL_CONFIRM_RESEND_SECONDS: '10',
  SESSION_TTL_SECONDS: '60',
  SETTLEMENT_INTERVAL_SECONDS: '20',
  WEBHOOK_RETRY_SCHEDULE: '1,2,3,5,5,5,5,5,5,5,5,5',
  // The run's webhook receiver and its banks' cores listen on loopback.
  PRIVATE_TARGETS: '1',
};
// The chaos driver is one client sending everything; the public per-address limits are not what is tested here.
export const SERVICE_ENV = {
  router: {
    RATE_LIMITS: JSON.stringify({ session_create: { points: 1e9 }, write: { points: 1e9 }, read: { points: 1e9 } }),
  },
};

/** The platform started: one process per service (scripts/launcher), on fixed ports so a restarted service is found where it was. */
export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const adminKey = newSecret('adm_');
  const platformSecret = newSecret('pls_');
  return options.replicas === 1
    ? startSplit(options, adminKey, platformSecret)
    : startBalanced(options, adminKey, platformSecret);
}

async function startSplit(options: DeploymentOptions, adminKey: string, platformSecret: string): Promise<Deployment> {
  const layout = await SplitLayout.plan({
    common: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: options.databaseUrl,
      AMQP_URL: options.amqpUrl,
      PLATFORM_SECRET: platformSecret,
      ADMIN_KEY: adminKey,
      // No balancer to drain: the run's restarts and its final stop need not wait.
      SHUTDOWN_DRAIN_SECONDS: '0',
      ...TIMINGS,
      ...options.env,
    },
    env: { ...SERVICE_ENV, ...options.serviceEnv },
  });
  const deployment: Deployment = {
    restUrl: `http://127.0.0.1:${layout.ports['rest-compat'][0]}`,
    adminKey,
    instances: layout.instances,
    of: (name) => layout.of(name),
    stop: () => layout.stop(10_000),
  };
  options.onPlanned(deployment);
  // Subgraphs one by one the first time (each migrates its schema), then the router and rest-compat.
  await layout.start();
  return deployment;
}

/** The cluster layout (`--replicas N`): HAProxy in front of N instances of every service. */
async function startBalanced(
  options: DeploymentOptions,
  adminKey: string,
  platformSecret: string,
): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-chaos-cluster-'));
  const cluster = await startCluster({
    replicas: options.replicas,
    databaseUrl: options.databaseUrl,
    amqpUrl: options.amqpUrl,
    platformSecret,
    adminKey,
    dataDir,
    publicPort: 0,
    env: { ...TIMINGS, ...options.env },
    serviceEnv: { ...SERVICE_ENV, ...options.serviceEnv },
  });
  const deployment: Deployment = {
    restUrl: cluster.publicUrl,
    adminKey,
    instances: cluster.layout.instances,
    of: (name) => cluster.layout.of(name),
    stop: async () => {
      await cluster.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  options.onPlanned(deployment);
  return deployment;
}
