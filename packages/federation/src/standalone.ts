import { openDatabase, type Database } from '@gateway/db';
import {
  createLogger,
  envDrainSeconds,
  envMetricsToken,
  envPort,
  handleShutdownSignals,
  loadConfig,
  requireMetricsTokenInProduction,
  z,
  type Logger,
} from '@gateway/kernel';
import { createBus, type EventBus } from '@gateway/events';
import type { RunningService } from './server';

/**
 * What every subgraph's start() takes; the launcher and the tests call the same function. A
 * service's own settings (payments' session TTL, webhook schedule, ...) live in its own start
 * options, which extend these.
 */
export interface SubgraphStartOptions {
  db: Database;
  /** Signs and verifies the principal the router forwards (and seals stored secrets). */
  platformSecret: string;
  production: boolean;
  /** Where the subgraph listens: loopback unless SUBGRAPH_HOST says otherwise (only the router and services call it). */
  host?: string;
  port?: number;
  /** METRICS_TOKEN: /metrics answers only a scrape sending it as a bearer token; unset, /metrics is open. */
  metricsToken?: string;
  logger?: Logger;
  /** The router's GraphQL endpoint, for service calls to other subgraphs (late-bound in one process). */
  routerUrl?: () => string;
  /** The event bus (in-process in embedded mode, RabbitMQ when AMQP_URL is set). */
  bus?: EventBus;
  /** More /readyz checks (a standalone process: not ready from SIGTERM on, so the balancer drains it). */
  readinessChecks?: () => Record<string, boolean>;
}

/** The environment every service reads when it runs alone. */
const standaloneEnv = z.object({
  DATABASE_URL: z.string().min(1, 'required when a service runs alone'),
  PLATFORM_SECRET: z.string().min(32, 'at least 32 characters, shared by the router and every subgraph'),
  /**
   * Not HOST: that opens the public services (rest-compat, the router); a subgraph answers only
   * signed calls, and stays on loopback unless it is meant to be reached from other machines.
   */
  SUBGRAPH_HOST: z.string().default('127.0.0.1'),
  PORT: envPort.optional(),
  NODE_ENV: z.string().optional(),
  ROUTER_URL: z.url().optional(),
  AMQP_URL: z.string().min(1).optional(),
  SHUTDOWN_DRAIN_SECONDS: envDrainSeconds,
  METRICS_TOKEN: envMetricsToken,
});

/**
 * A service's own environment: its variables (zod, defined in the service) and how they become its
 * start options. Parsed together with the common variables, so every problem is reported at once.
 */
export interface ServiceEnv<S extends z.ZodObject, O> {
  schema: S;
  options(env: z.infer<S>): O;
}

/** A service's environment when it runs alone: the common variables and its own, every problem reported at once. */
export function loadStandaloneEnv<S extends z.ZodObject = z.ZodObject>(
  own?: ServiceEnv<S, unknown>,
  env: Record<string, string | undefined> = process.env,
) {
  // One schema for both; zod cannot type a generic merge.
  const schema = (own ? standaloneEnv.extend(own.schema.shape) : standaloneEnv).superRefine(
    requireMetricsTokenInProduction,
  );
  return loadConfig(schema, env) as z.infer<typeof standaloneEnv> & z.infer<S>;
}

/** `npm run start:<service>`: one service in its own process against DATABASE_URL. */
export async function runStandalone<S extends z.ZodObject = z.ZodObject, O extends object = object>(
  name: string,
  defaultPort: number,
  start: (options: SubgraphStartOptions & O) => Promise<RunningService>,
  own?: ServiceEnv<S, O>,
): Promise<void> {
  const env = loadStandaloneEnv(own);
  const logger = createLogger(name);
  const db = await openDatabase({ url: env.DATABASE_URL });
  const bus = createBus({
    amqpUrl: env.AMQP_URL,
    connectionName: name,
    onError: (error) => logger.warn({ err: error }, 'event bus'),
  });
  // Installed before the start, so a SIGTERM during it still ends in order: the start finishes, then stops.
  const shutdown = handleShutdownSignals({
    logger,
    drainSeconds: env.SHUTDOWN_DRAIN_SECONDS,
    async stop() {
      const service = await starting.catch(() => undefined);
      await service?.stop();
      await bus.close();
      await db.close();
    },
  });
  const starting = start({
    db,
    platformSecret: env.PLATFORM_SECRET,
    production: env.NODE_ENV === 'production',
    host: env.SUBGRAPH_HOST,
    port: env.PORT ?? defaultPort,
    logger,
    routerUrl: env.ROUTER_URL ? () => env.ROUTER_URL! : undefined,
    // Without AMQP_URL a standalone service's events stay in its own process (in-process bus).
    bus,
    readinessChecks: shutdown.readiness,
    metricsToken: env.METRICS_TOKEN,
    // The service's own options; a service without any passes none.
    ...((own?.options(env) ?? {}) as O),
  });
  await starting;
}
