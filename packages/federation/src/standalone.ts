import { openDatabase, type Database } from '@gateway/db';
import { createLogger, envPort, loadConfig, z, type Logger } from '@gateway/kernel';
import { createBus, type EventBus } from '@gateway/events';
import type { RunningService } from './server';

/** What every subgraph's start() takes; the launcher and the tests call the same function. */
export interface SubgraphStartOptions {
  db: Database;
  /** Signs and verifies the principal the router forwards (and seals stored secrets). */
  platformSecret: string;
  production: boolean;
  host?: string;
  port?: number;
  logger?: Logger;
  /** The router's GraphQL endpoint, for service calls to other subgraphs (late-bound in one process). */
  routerUrl?: () => string;
  /** The event bus (in-process in embedded mode, RabbitMQ when AMQP_URL is set). */
  bus?: EventBus;
  /** Base of customer-facing URLs (checkout_url, consent_url, sca_url). */
  publicBaseUrl?: string;
  /** Payment session TTL. */
  sessionTtlSeconds?: number;
  /** Pauses between webhook retries, in seconds (WEBHOOK_RETRY_SCHEDULE); unset: the built-in schedule. */
  webhookRetryScheduleSeconds?: number[];
  /** Deadline of one webhook attempt (10 s unless a test shortens it). */
  webhookAttemptTimeoutMs?: number;
}

/** "5,30,120" (seconds) as a list; every value a non-negative number. */
export const envSecondsList = z
  .string()
  .transform((text, ctx) => {
    const values = text.split(',').map((part) => Number(part.trim()));
    if (!values.length || values.some((value) => !Number.isFinite(value) || value < 0)) {
      ctx.addIssue({ code: 'custom', message: 'must be comma-separated seconds, e.g. 5,30,120' });
      return z.NEVER;
    }
    return values;
  });

const standaloneConfig = z.object({
  DATABASE_URL: z.string().min(1, 'required when a service runs alone'),
  PLATFORM_SECRET: z.string().min(32, 'at least 32 characters, shared by the router and every subgraph'),
  HOST: z.string().default('127.0.0.1'),
  PORT: envPort.optional(),
  NODE_ENV: z.string().optional(),
  ROUTER_URL: z.url().optional(),
  PUBLIC_BASE_URL: z.url().default('http://localhost:8080'),
  SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  AMQP_URL: z.string().min(1).optional(),
  WEBHOOK_RETRY_SCHEDULE: envSecondsList.optional(),
});

/** `npm run start:<service>`: one service in its own process against DATABASE_URL. */
export async function runStandalone(name: string, defaultPort: number, start: (options: SubgraphStartOptions) => Promise<RunningService>): Promise<void> {
  const config = loadConfig(standaloneConfig);
  const logger = createLogger(name);
  const db = await openDatabase({ url: config.DATABASE_URL });
  const bus = createBus({ amqpUrl: config.AMQP_URL, connectionName: name, onError: (error) => logger.warn({ err: error }, 'event bus') });
  const service = await start({
    db,
    platformSecret: config.PLATFORM_SECRET,
    production: config.NODE_ENV === 'production',
    host: config.HOST,
    port: config.PORT ?? defaultPort,
    logger,
    routerUrl: config.ROUTER_URL ? () => config.ROUTER_URL! : undefined,
    // Without AMQP_URL a standalone service's events stay in its own process (in-process bus).
    bus,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    webhookRetryScheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE,
  });
  const shutdown = async () => {
    await service.stop();
    await bus.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
