// First: tracing (only with OTEL_EXPORTER_OTLP_ENDPOINT) must be in place before any server or client exists.
import '@gateway/tracing/register';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '@gateway/db';
import { createBus } from '@gateway/events';
import {
  createLogger,
  envDrainSeconds,
  envMetricsToken,
  envPort,
  handleShutdownSignals,
  loadConfig,
  requireMetricsTokenInProduction,
  z,
} from '@gateway/kernel';
import { routerEnvSchema } from './config';
import { startRouter } from './server';

/** `npm run start:router`: the router alone, in front of subgraphs running elsewhere. */
const config = loadConfig(
  z
    .object({
      DATABASE_URL: z.string().min(1, 'required: the router verifies credentials in the vault'),
      PLATFORM_SECRET: z.string().min(32),
      ADMIN_KEY: z.string().min(24),
      BANKS_URL: z.url(),
      IDENTITY_URL: z.url(),
      PAYMENTS_URL: z.url(),
      OPEN_BANKING_URL: z.url(),
      HOST: z.string().default('127.0.0.1'),
      ROUTER_PORT: envPort.default(4000),
      RATE_LIMITS: z.string().optional(),
      /** Where limit counters live: postgres (default here: every router on the database counts together) or memory (this router alone). */
      RATE_LIMIT_STORE: z.enum(['postgres', 'memory']).default('postgres'),
      NODE_ENV: z.string().optional(),
      AMQP_URL: z.string().min(1).optional(),
      SHUTDOWN_DRAIN_SECONDS: envDrainSeconds,
      METRICS_TOKEN: envMetricsToken,
      /** Where compositions are kept for the next start of the same schemas (compose.ts); unset: composed every start. */
      SUPERGRAPH_CACHE_DIR: z.string().min(1).optional(),
    })
    .extend(routerEnvSchema.shape)
    .superRefine(requireMetricsTokenInProduction),
);

const sdl = (name: string) => readFileSync(join(__dirname, '..', '..', 'subgraphs', name, 'schema.graphql'), 'utf8');

void (async () => {
  const db = await openDatabase({ url: config.DATABASE_URL });
  const logger = createLogger('router');
  // Subscriptions follow the bus: with RabbitMQ every router instance sees every event.
  const bus = createBus({
    amqpUrl: config.AMQP_URL,
    connectionName: 'router',
    onError: (error) => logger.warn({ err: error }, 'event bus'),
  });
  // Not ready from the first SIGTERM on (the balancer drains this router), then requests in flight end.
  const shutdown = handleShutdownSignals({
    logger,
    drainSeconds: config.SHUTDOWN_DRAIN_SECONDS,
    async stop() {
      const router = await starting.catch(() => undefined);
      await router?.stop();
      await bus.close();
      await db.close();
    },
  });
  const starting = startRouter({
    db,
    subgraphs: [
      { name: 'banks', url: config.BANKS_URL, sdl: sdl('banks') },
      { name: 'identity', url: config.IDENTITY_URL, sdl: sdl('identity') },
      { name: 'payments', url: config.PAYMENTS_URL, sdl: sdl('payments') },
      { name: 'open-banking', url: config.OPEN_BANKING_URL, sdl: sdl('open-banking') },
    ],
    supergraphCacheDir: config.SUPERGRAPH_CACHE_DIR,
    platformSecret: config.PLATFORM_SECRET,
    adminKey: config.ADMIN_KEY,
    production: config.NODE_ENV === 'production',
    host: config.HOST,
    port: config.ROUTER_PORT,
    rateLimits: config.RATE_LIMITS ? JSON.parse(config.RATE_LIMITS) : undefined,
    sharedRateLimits: config.RATE_LIMIT_STORE === 'postgres',
    logger,
    bus,
    readinessChecks: shutdown.readiness,
    metricsToken: config.METRICS_TOKEN,
    subscriptionMaxLifetimeSeconds: config.SUBSCRIPTION_MAX_LIFETIME_SECONDS,
    shareInFlightReads: config.ROUTER_SHARE_INFLIGHT_READS,
    dpopNoncesRequired: config.DPOP_NONCE_REQUIRED,
  });
  await starting;
})();
