import { openServiceOrm } from '@gateway/db';
import { startSubgraphServer, type RunningService, type SubgraphStartOptions } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { OutboxEvent } from '@gateway/events';
import { migrateVault, Credential } from '@gateway/vault';
import { MerchantEntity } from './merchant/merchant.entity';
import { migrations } from './migrations';
import { buildPaymentsSchema } from './schema';

export const PAYMENTS_SCHEMA = 'payments';

/** Starts the payments subgraph: migrations, schema, HTTP server. */
export async function start(options: SubgraphStartOptions): Promise<RunningService> {
  await migrateVault(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: PAYMENTS_SCHEMA,
    entities: [MerchantEntity, Credential, OutboxEvent],
    migrations,
    foreignSchemas: ['auth'],
  });
  const schema = await buildPaymentsSchema({ platformSecret: options.platformSecret, production: options.production });
  return startSubgraphServer({
    name: 'payments',
    schema,
    orm,
    db: options.db,
    logger: options.logger ?? createLogger('payments'),
    platformSecret: options.platformSecret,
    production: options.production,
    host: options.host,
    port: options.port,
  });
}
