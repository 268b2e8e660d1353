import { openServiceOrm } from '@gateway/db';
import { startSubgraphServer, type RunningService, type SubgraphStartOptions } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { OutboxEvent, startOutboxRelay } from '@gateway/events';
import { migrateVault, Credential } from '@gateway/vault';
import { AuditEntry, migrateAudit } from '@gateway/audit';
import { BankEntity } from './bank/bank.entity';
import type { BanksConfig } from './config';
import { migrations } from './migrations';
import { buildBanksSchema } from './schema';

export const BANKS_SCHEMA = 'banks';

/** The options every subgraph takes, and the banks service's own (INTERNAL_KEY_GRACE_SECONDS, PRIVATE_TARGETS). */
export type BanksStartOptions = SubgraphStartOptions & Partial<BanksConfig>;

/** Starts the banks subgraph: migrations, schema, HTTP server; with a bus, the outbox relay. */
export async function start(options: BanksStartOptions): Promise<RunningService> {
  await migrateVault(options.db);
  await migrateAudit(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: BANKS_SCHEMA,
    entities: [BankEntity, Credential, AuditEntry, OutboxEvent],
    migrations,
    foreignSchemas: ['auth', 'audit'],
  });
  const logger = options.logger ?? createLogger('banks');
  const schema = await buildBanksSchema({
    platformSecret: options.platformSecret,
    production: options.production,
    internalKeyGraceSeconds: options.internalKeyGraceSeconds,
    privateTargets: options.privateTargets ?? false,
  });
  const server = await startSubgraphServer({
    name: 'banks',
    schema,
    orm,
    db: options.db,
    logger,
    platformSecret: options.platformSecret,
    production: options.production,
    host: options.host,
    port: options.port,
    readinessChecks: options.readinessChecks,
    metricsToken: options.metricsToken,
  });
  // Changes of how the gateway reaches a core (a rotated internal key) leave through the bus:
  // payments and open-banking drop their cached routing of the bank on them.
  const relayLogger = logger.child({ component: 'outbox-relay' });
  const relay = options.bus
    ? startOutboxRelay({
        orm,
        bus: options.bus,
        onError: (error) => relayLogger.warn({ err: error }, 'events wait in the outbox: the bus refused them'),
      })
    : undefined;
  return {
    ...server,
    async stop() {
      await server.stop();
      await relay?.stop();
    },
  };
}
