import { openServiceOrm } from '@gateway/db';
import { startSubgraphServer, type RunningService, type SubgraphStartOptions } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { migrateVault, Credential } from '@gateway/vault';
import { migrations } from './migrations';
import { buildOpenBankingSchema } from './schema';
import { TppEntity } from './tpp/tpp.entity';

export const OPEN_BANKING_SCHEMA = 'open_banking';

/** Starts the open-banking subgraph: migrations, schema, HTTP server. */
export async function start(options: SubgraphStartOptions): Promise<RunningService> {
  await migrateVault(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: OPEN_BANKING_SCHEMA,
    entities: [TppEntity, Credential],
    migrations,
    foreignSchemas: ['auth'],
  });
  const schema = await buildOpenBankingSchema({ platformSecret: options.platformSecret, production: options.production });
  return startSubgraphServer({
    name: 'open-banking',
    schema,
    orm,
    db: options.db,
    logger: options.logger ?? createLogger('open-banking'),
    platformSecret: options.platformSecret,
    production: options.production,
    host: options.host,
    port: options.port,
  });
}
