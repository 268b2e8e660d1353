import { openServiceOrm } from '@gateway/db';
import { startSubgraphServer, type RunningService, type SubgraphStartOptions } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { migrateVault, Credential } from '@gateway/vault';
import { AuditEntry, migrateAudit } from '@gateway/audit';
import { BankEntity } from './bank/bank.entity';
import { migrations } from './migrations';
import { buildBanksSchema } from './schema';

export const BANKS_SCHEMA = 'banks';

/** Starts the banks subgraph: migrations, schema, HTTP server. */
export async function start(options: SubgraphStartOptions): Promise<RunningService> {
  await migrateVault(options.db);
  await migrateAudit(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: BANKS_SCHEMA,
    entities: [BankEntity, Credential, AuditEntry],
    migrations,
    foreignSchemas: ['auth', 'audit'],
  });
  const schema = await buildBanksSchema({ platformSecret: options.platformSecret, production: options.production });
  return startSubgraphServer({
    name: 'banks',
    schema,
    orm,
    db: options.db,
    logger: options.logger ?? createLogger('banks'),
    platformSecret: options.platformSecret,
    production: options.production,
    host: options.host,
    port: options.port,
    readinessChecks: options.readinessChecks,
    metricsToken: options.metricsToken,
  });
}
