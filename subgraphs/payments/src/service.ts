import { openServiceOrm, type ServiceOrm } from '@gateway/db';
import { startSubgraphServer, type RunningService, type SubgraphStartOptions } from '@gateway/federation';
import { createLogger, type Logger } from '@gateway/kernel';
import { OutboxEvent, startOutboxRelay, type EventBus } from '@gateway/events';
import { migrateVault, Credential } from '@gateway/vault';
import { MerchantEntity } from './merchant/merchant.entity';
import { migrations } from './migrations';
import { buildPaymentsSchema } from './schema';
import { WebhookAttemptEntity, WebhookDeliveryEntity } from './webhook/webhook-delivery.entity';
import { startWebhookDispatcher } from './webhook/webhook-dispatcher';

export const PAYMENTS_SCHEMA = 'payments';

/** Starts the payments subgraph: migrations, schema, HTTP server; with a bus, the outbox relay and webhooks. */
export async function start(options: SubgraphStartOptions): Promise<RunningService> {
  await migrateVault(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: PAYMENTS_SCHEMA,
    entities: [MerchantEntity, Credential, OutboxEvent, WebhookDeliveryEntity, WebhookAttemptEntity],
    migrations,
    foreignSchemas: ['auth'],
  });
  const logger = options.logger ?? createLogger('payments');
  const schema = await buildPaymentsSchema({ platformSecret: options.platformSecret, production: options.production });
  const server = await startSubgraphServer({
    name: 'payments',
    schema,
    orm,
    db: options.db,
    logger,
    platformSecret: options.platformSecret,
    production: options.production,
    host: options.host,
    port: options.port,
  });
  const events = options.bus ? await startEvents(orm, options.bus, options, logger) : undefined;
  return {
    ...server,
    async stop() {
      await events?.stop();
      await server.stop();
    },
  };
}

/**
 * The payments outbox relay and the webhook dispatcher. The dispatcher's queue is declared first,
 * so the relay's first events already have somewhere to go.
 */
async function startEvents(orm: ServiceOrm, bus: EventBus, options: SubgraphStartOptions, logger: Logger) {
  const dispatcher = await startWebhookDispatcher({
    knex: orm.em.getKnex(),
    bus,
    platformSecret: options.platformSecret,
    production: options.production,
    logger: logger.child({ component: 'webhooks' }),
    retryScheduleSeconds: options.webhookRetryScheduleSeconds,
    attemptTimeoutMs: options.webhookAttemptTimeoutMs,
  });
  const relayLogger = logger.child({ component: 'outbox-relay' });
  const relay = startOutboxRelay({ orm, bus, onError: (error) => relayLogger.warn({ err: error }, 'events wait in the outbox: the bus refused them') });
  return {
    dispatcher,
    async stop() {
      await relay.stop();
      await dispatcher.stop();
    },
  };
}
