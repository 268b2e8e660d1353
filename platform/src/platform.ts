import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { openDatabase, type Database } from '@gateway/db';
import { createBus, type EventBus } from '@gateway/events';
import type { RunningService } from '@gateway/federation';
import { createLogger, type Logger } from '@gateway/kernel';
import { startRestCompat } from '@gateway/rest-compat';
import { startRouter, type LimitOverrides, type RunningRouter } from '@gateway/router';
import type { PlatformConfig } from './config';
import { assertPortsFree } from './ports';
import { createReadiness, type Readiness } from './readiness';
import { readCommittedSdl } from './sdl';
import { resolveSecrets } from './secrets';
import { SUBGRAPHS, type ServiceOverrides } from './subgraphs';

export interface Platform {
  /** rest-compat: the one base address of the REST API and the /graphql proxy. */
  restUrl: string;
  routerUrl: string;
  graphqlUrl: string;
  subgraphUrls: Record<string, string>;
  adminKey: string;
  platformSecret: string;
  db: Database;
  bus: EventBus;
  config: PlatformConfig;
  /** Gates of /readyz: `demo` is held from the start when the demo is on, until startDemo has seeded it. */
  readiness: Readiness;
  /**
   * Something started beside the platform on its database (the demo's sandbox banks and
   * receiver): stopped after the services that call it, before the bus and database it uses.
   */
  attach(part: { stop(): Promise<void> }): void;
  /** Headers GraphiQL (GET /graphql in a browser) is prefilled with from now on; ignored in production, which serves no GraphiQL. */
  prefillGraphiQL(headers: Record<string, string>): void;
  /** Not ready, then rest-compat, router, subgraphs (their jobs), attached parts, bus, database. Once. */
  stop(): Promise<void>;
}

/** The readiness gate the demo holds until it is seeded. */
export const DEMO_GATE = 'demo';

export interface StartPlatformOptions extends ServiceOverrides {
  /** An already open database (tests); otherwise one is opened from the config. */
  db?: Database;
  logger?: Logger;
  rateLimits?: LimitOverrides;
  /** An event bus made by the caller (tests: RabbitMQ in a namespace of their own); otherwise createBus(AMQP_URL). */
  bus?: EventBus;
  /**
   * Where start-up progress goes (`npm start`: an info-level logger, so the seconds of opening the
   * database, migrating and composing are not silent): one line as each step starts and as it ends.
   */
  progress?: Logger;
}

/** Start-up steps as progress lines name them (`step` field). */
export type StartStep = 'database' | 'migrations' | 'composition' | 'seeding' | 'ready';

/** Runs one start-up step between two progress lines; the second says how long it took. */
export async function startStep<T>(
  progress: Logger | undefined,
  step: StartStep,
  what: string,
  work: () => Promise<T>,
  fields: Record<string, unknown> = {},
): Promise<T> {
  const started = performance.now();
  progress?.info({ step, ...fields }, `${what}…`);
  const result = await work();
  progress?.info({ step, ...fields, ms: Math.round(performance.now() - started) }, `${what}: done`);
  return result;
}

/**
 * Every service in one process: the subgraphs, the router and rest-compat, on one database
 * pool. The same start() functions run each service alone (`npm run start:<service>`).
 */
export async function startPlatform(given: PlatformConfig, options: StartPlatformOptions = {}): Promise<Platform> {
  // Before the database, its migrations and the demo's seeding: a busy port is said at once, naming the variable to set.
  await assertPortsFree(given.host, [
    { variable: 'REST_PORT', port: given.ports.rest },
    { variable: 'ROUTER_PORT', port: given.ports.router },
  ]);
  // The REST port is fixed before the subgraphs start: they put the public base into links.
  // Held until rest-compat listens on it: released earlier, another listener (a parallel test) could take it meanwhile.
  const reserved = given.ports.rest === 0 && !given.publicBaseUrlSet ? await reservePort(given.host) : undefined;
  const restPort = reserved?.port ?? given.ports.rest;
  const config = given.publicBaseUrlSet
    ? given
    : withPublicBaseUrl(given, `http://${browserHost(given.host)}:${restPort}`);
  const logger = options.logger ?? createLogger('platform');
  // The database first: in embedded mode opening it takes the data directory's lock, so a second
  // start on the same DATA_DIR stops before it writes anything there (secrets.json included).
  const progress = options.progress;
  const db =
    options.db ??
    (await startStep(
      progress,
      'database',
      config.embedded
        ? `opening the embedded database in ${join(config.dataDir, 'pglite')}`
        : 'connecting to PostgreSQL',
      () =>
        openDatabase({
          url: config.databaseUrl,
          dataDir: config.embedded ? join(config.dataDir, 'pglite') : undefined,
        }),
    ));
  const readiness = createReadiness(config.sandboxBanks ? [DEMO_GATE] : []);
  const running: Array<{ stop(): Promise<void> }> = [];
  const attached: Array<{ stop(): Promise<void> }> = [];
  // Subgraphs start before the router they call through; they read its address when they need it.
  const bus =
    options.bus ??
    createBus({
      amqpUrl: config.amqpUrl,
      connectionName: 'platform',
      onError: (error) => logger.warn({ err: error }, 'event bus'),
    });
  // Every service's metrics registry, as each starts: rest-compat's and the router's /metrics serve
  // them all (with each series' `service` label), so the process is one scrape target; the
  // subgraphs' own /metrics (random ports here) still serve only their own.
  const registries: Array<RunningService['metrics']> = [];
  const scrape = () => registries;
  let routerGraphqlUrl = '';
  let graphiqlHeaders: Record<string, string> | undefined;
  const routerUrl = () => routerGraphqlUrl;

  try {
    const secrets = resolveSecrets(
      config.dataDir,
      { adminKey: config.adminKey, platformSecret: config.platformSecret },
      config.production,
    );
    const subgraphs: Array<{ name: string; service: RunningService }> = [];
    for (const subgraph of SUBGRAPHS) {
      const common = {
        db,
        platformSecret: secrets.platformSecret,
        production: config.production,
        host: config.subgraphHost,
        port: subgraph.port(config),
        metricsToken: config.metricsToken,
        logger: logger.child({ service: subgraph.name }),
        routerUrl,
        bus,
      };
      // Each subgraph migrates its schema, builds its GraphQL schema and listens.
      const service = await startStep(
        progress,
        'migrations',
        `${subgraph.name}: migrations and start`,
        () => subgraph.start(common, config, options),
        { service: subgraph.name },
      );
      running.push(service);
      registries.push(service.metrics);
      subgraphs.push({ name: subgraph.name, service });
    }

    const router: RunningRouter = await startStep(
      progress,
      'composition',
      'composing the supergraph and starting the router',
      () =>
        startRouter({
          db,
          subgraphs: subgraphs.map(({ name, service }) => ({
            name,
            url: service.graphqlUrl,
            sdl: readCommittedSdl(name),
          })),
          supergraphCacheDir: config.supergraphCacheDir,
          platformSecret: secrets.platformSecret,
          adminKey: secrets.adminKey,
          production: config.production,
          host: config.host,
          port: config.ports.router,
          rateLimits: options.rateLimits ?? (config.rateLimits as LimitOverrides | undefined),
          // One process runs one router: its counters stay in memory unless RATE_LIMIT_STORE=postgres
          // (other routers on this database). `npm run start:router` shares them by default.
          sharedRateLimits: config.sharedRateLimits,
          logger: logger.child({ service: 'router' }),
          bus,
          readinessChecks: readiness.checks,
          graphiql: { headers: () => graphiqlHeaders },
          metricsToken: config.metricsToken,
          scrape,
          subscriptionMaxLifetimeSeconds: config.subscriptionMaxLifetimeSeconds,
          shareInFlightReads: config.shareInFlightReads,
          dpopNoncesRequired: config.openBanking.dpopNoncesRequired,
        }),
    );
    running.push(router);
    registries.push(router.metrics);
    routerGraphqlUrl = router.graphqlUrl;

    await reserved?.release();
    const rest = await startRestCompat({
      routerUrl: router.graphqlUrl,
      host: config.host,
      port: restPort,
      ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
      production: config.production,
      publicBaseUrl: config.payments.publicBaseUrl,
      logger: logger.child({ service: 'rest-compat' }),
      metricsToken: config.metricsToken,
      scrape,
      landing: {
        database: config.embedded
          ? `embedded PGlite in ${join(config.dataDir, 'pglite')}`
          : 'PostgreSQL (DATABASE_URL)',
        bus: config.amqpUrl ? 'RabbitMQ (AMQP_URL)' : 'in-process',
        graphqlUrl: router.graphqlUrl,
        ...(config.sandboxBanks ? { demoFile: join(config.dataDir, 'demo.json') } : {}),
      },
    });
    running.push(rest);
    registries.push(rest.metrics);

    let stopped: Promise<void> | undefined;
    return {
      restUrl: rest.url,
      routerUrl: router.url,
      graphqlUrl: router.graphqlUrl,
      subgraphUrls: Object.fromEntries(subgraphs.map(({ name, service }) => [name, service.graphqlUrl])),
      adminKey: secrets.adminKey,
      platformSecret: secrets.platformSecret,
      db,
      bus,
      config,
      readiness,
      attach: (part) => void attached.push(part),
      prefillGraphiQL: (headers) => {
        if (!config.production) graphiqlHeaders = headers;
      },
      stop: () =>
        (stopped ??= (async () => {
          readiness.hold('stopping');
          // Front to back: rest-compat and the router stop taking requests, then each subgraph
          // stops its jobs, relay and server; the parts beside them (sandbox banks the engine
          // calls) after; the database last, so every step before it can still write.
          try {
            for (const part of [...running].reverse()) await part.stop();
            for (const part of [...attached].reverse()) await part.stop();
            if (!options.bus) await bus.close();
          } finally {
            if (!options.db) await db.close();
          }
        })()),
    };
  } catch (error) {
    await reserved?.release();
    for (const service of running.reverse()) await service.stop().catch(() => undefined);
    if (!options.bus) await bus.close().catch(() => undefined);
    if (!options.db) await db.close().catch(() => undefined);
    throw error;
  }
}

/** The config with links made on `publicBaseUrl` (payments' checkout_url; open-banking's consent_url and sca_url share it). */
function withPublicBaseUrl(config: PlatformConfig, publicBaseUrl: string): PlatformConfig {
  return { ...config, payments: { ...config.payments, publicBaseUrl } };
}

/** How a browser on this machine reaches `host`: a wildcard or loopback address is localhost. */
function browserHost(host: string): string {
  return ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(host)
    ? 'localhost'
    : host.includes(':')
      ? `[${host}]`
      : host;
}

/**
 * A free port on `host`, held by a bare listener until `release`: REST_PORT=0 asks for any, and
 * links need to name it before rest-compat starts (after the subgraphs and the router).
 */
function reservePort(host: string): Promise<{ port: number; release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const holder = createServer();
    holder.once('error', reject);
    holder.listen(0, host, () => {
      const { port } = holder.address() as AddressInfo;
      let released: Promise<void> | undefined;
      const release = () => (released ??= new Promise<void>((done) => holder.close(() => done())));
      resolve({ port, release });
    });
  });
}
