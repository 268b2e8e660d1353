import { openServiceOrm } from '@gateway/db';
import { startSubgraphServer, type RunningService, type SubgraphStartOptions } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { AuditEntry, migrateAudit } from '@gateway/audit';
import { Credential, migrateVault } from '@gateway/vault';
import { AliasEntity } from './alias/alias.entity';
import { migrations } from './migrations';
import { OtpGuardEntity } from './otp-guard/otp-guard.entity';
import { buildIdentitySchema } from './schema';

export const IDENTITY_SCHEMA = 'identity';

/** Starts the identity subgraph (national alias directory): migrations, schema, HTTP server. */
export async function start(options: SubgraphStartOptions): Promise<RunningService> {
  // The vault and the audit log: operators' admin keys and the log's reads live here (issue 27).
  await migrateVault(options.db);
  await migrateAudit(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: IDENTITY_SCHEMA,
    entities: [AliasEntity, OtpGuardEntity, Credential, AuditEntry],
    migrations,
    foreignSchemas: ['auth', 'audit'],
  });
  const schema = await buildIdentitySchema();
  return startSubgraphServer({
    name: 'identity',
    schema,
    orm,
    db: options.db,
    logger: options.logger ?? createLogger('identity'),
    platformSecret: options.platformSecret,
    production: options.production,
    host: options.host,
    port: options.port,
    readinessChecks: options.readinessChecks,
    metricsToken: options.metricsToken,
  });
}
