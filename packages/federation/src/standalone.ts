import { openDatabase, type Database } from '@gateway/db';
import { createLogger, envPort, loadConfig, z, type Logger } from '@gateway/kernel';
import { createMemoryBus, type EventBus } from '@gateway/events';
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
}

const standaloneConfig = z.object({
  DATABASE_URL: z.string().min(1, 'required when a service runs alone'),
  PLATFORM_SECRET: z.string().min(32, 'at least 32 characters, shared by the router and every subgraph'),
  HOST: z.string().default('127.0.0.1'),
  PORT: envPort.optional(),
  NODE_ENV: z.string().optional(),
  ROUTER_URL: z.url().optional(),
  PUBLIC_BASE_URL: z.url().default('http://localhost:8080'),
  SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
});

/** `npm run start:<service>`: one service in its own process against DATABASE_URL. */
export async function runStandalone(name: string, defaultPort: number, start: (options: SubgraphStartOptions) => Promise<RunningService>): Promise<void> {
  const config = loadConfig(standaloneConfig);
  const logger = createLogger(name);
  const db = await openDatabase({ url: config.DATABASE_URL });
  const service = await start({
    db,
    platformSecret: config.PLATFORM_SECRET,
    production: config.NODE_ENV === 'production',
    host: config.HOST,
    port: config.PORT ?? defaultPort,
    logger,
    routerUrl: config.ROUTER_URL ? () => config.ROUTER_URL! : undefined,
    // TODO(issue 5): RabbitMQ when AMQP_URL is set; a standalone service on the memory bus only sees its own events.
    bus: createMemoryBus(),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
  });
  const shutdown = async () => {
    await service.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
