import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '@gateway/rest-compat';
import { startBanksProcess, type BanksProcess } from '../launcher/sandbox-banks';
import { freePort, type ServiceProcess } from '../launcher/service-process';
import { SERVICES, SplitLayout, SUBGRAPHS, type ServiceName, type SubgraphName } from '../launcher/split-layout';
import { DEFAULT_HEALTH_CHECK, Haproxy, haproxyConfig, type HealthCheck } from './haproxy';

export interface ClusterOptions {
  /** Instances of every service. */
  replicas: number;
  databaseUrl: string;
  amqpUrl: string;
  platformSecret: string;
  adminKey: string;
  /** haproxy.cfg (and demo.json with the demo) go here. */
  dataDir: string;
  /** The public address's port (0: any free one). */
  publicPort: number;
  host?: string;
  /** HAProxy's checks of GET /readyz. */
  check?: HealthCheck;
  /** SHUTDOWN_DRAIN_SECONDS of every instance: longer than HAProxy needs to see it go (interval × fall). */
  drainSeconds?: number;
  /** Every process's extra environment (LOG_LEVEL, payments' timings, ...). */
  env?: Record<string, string>;
  /** A service's own extra environment (the router's RATE_LIMITS). */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Sandbox banks with the demo seeded through the public address; their first port (0: any). */
  demo?: { sandboxPortBase: number };
}

export interface Cluster {
  /** HAProxy in front of the rest-compat instances: REST and /graphql. */
  publicUrl: string;
  layout: SplitLayout;
  haproxy: Haproxy;
  /** With the demo: the sandbox banks process and what it seeded. */
  banks?: BanksProcess;
  /**
   * SIGTERM to one instance (it drains and must exit 0), started again on its port, and waited
   * for until HAProxy sends it requests again. Answers the exit code and how long it was away.
   */
  restart(instance: ServiceProcess): Promise<{ exitCode: number | null; awayMs: number }>;
  stop(): Promise<void>;
}

/**
 * The scaled-out layout on one machine: `replicas` instances of every subgraph, of the router and
 * of rest-compat, each behind HAProxy (one frontend per service, health-checked on /readyz). The
 * routers reach each subgraph through its frontend, rest-compat reaches the routers through
 * theirs, and the public address is the frontend of the rest-compat instances.
 *
 *   client → HAProxy :public → rest-compat ×N → HAProxy router → router ×N → HAProxy <subgraph> → subgraph ×N
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const check = options.check ?? DEFAULT_HEALTH_CHECK;
  mkdirSync(options.dataDir, { recursive: true });
  const statsPort = await freePort();
  const publicPort = options.publicPort || (await freePort());
  const frontends = {} as Record<ServiceName, number>;
  for (const service of SERVICES) frontends[service] = service === 'rest-compat' ? publicPort : await freePort();
  const host = options.host ?? '127.0.0.1';
  const publicUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${publicPort}`;
  const drainSeconds = options.drainSeconds ?? Math.ceil(((check.intervalMs * (check.fall + 1)) / 1000) * 10) / 10;

  const layout = await SplitLayout.plan({
    replicas: options.replicas,
    common: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: options.databaseUrl,
      AMQP_URL: options.amqpUrl,
      PLATFORM_SECRET: options.platformSecret,
      ADMIN_KEY: options.adminKey,
      SHUTDOWN_DRAIN_SECONDS: String(drainSeconds),
      // Links in answers (checkout_url, consent_url) name the public address.
      PUBLIC_BASE_URL: publicUrl,
      LOG_LEVEL: 'warn',
      // One machine: the banks' cores (the demo's sandbox banks, a bench's) and webhook receivers listen on loopback.
      PRIVATE_TARGETS: '1',
      ...options.env,
    },
    env: {
      ...options.serviceEnv,
      // HAProxy's X-Forwarded-For names the client.
      'rest-compat': { TRUST_PROXY: 'loopback', ...options.serviceEnv?.['rest-compat'] },
    },
    reach: () => ({
      subgraphs: Object.fromEntries(SUBGRAPHS.map((name) => [name, `http://127.0.0.1:${frontends[name]}`])) as Record<
        SubgraphName,
        string
      >,
      router: `http://127.0.0.1:${frontends.router}`,
    }),
  });
  const haproxy = new Haproxy(join(options.dataDir, 'haproxy.cfg'), statsPort);
  const config = haproxyConfig(
    SERVICES.map((service) => ({
      name: service,
      frontendPort: frontends[service],
      servers: layout.of(service).map((instance) => ({ name: instance.name, port: instance.spec.port })),
      public: service === 'rest-compat',
      // The routes that deduplicate by Idempotency-Key: HAProxy may send those again (haproxy.ts).
      ...(service === 'rest-compat'
        ? { deduplicatedPaths: ROUTES.filter((route) => route.idempotent).map((route) => route.path) }
        : {}),
    })),
    statsPort,
    check,
    host,
  );
  let banks: BanksProcess | undefined;
  const stop = async () => {
    await banks?.stop();
    await layout.stop();
    await haproxy.stop();
  };
  try {
    await haproxy.start(config);
    await layout.start();
    for (const instance of layout.instances) await haproxy.waitUp(instance.spec.service, instance.name);
    if (options.demo) {
      banks = await startBanksProcess({
        PATH: process.env.PATH ?? '',
        DATABASE_URL: options.databaseUrl,
        DEMO_REST_URL: publicUrl,
        ADMIN_KEY: options.adminKey,
        DATA_DIR: options.dataDir,
        SANDBOX_PORT_BASE: String(options.demo.sandboxPortBase),
        HOST: host,
        LOG_LEVEL: options.env?.LOG_LEVEL ?? 'warn',
      });
    }
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return {
    publicUrl,
    layout,
    haproxy,
    banks,
    async restart(instance) {
      const began = Date.now();
      const exitCode = await instance.terminate();
      await instance.start();
      await haproxy.waitUp(instance.spec.service, instance.name);
      return { exitCode, awayMs: Date.now() - began };
    },
    stop,
  };
}
