import { openServiceOrm } from '@gateway/db';
import {
  forgetBankRoutingOnChange,
  startSubgraphServer,
  type RunningService,
  type SubgraphStartOptions,
} from '@gateway/federation';
import { createLogger, createMetricsRegistry } from '@gateway/kernel';
import { startOutboxRelay } from '@gateway/events';
import { migrateVault } from '@gateway/vault';
import { migrateAudit } from '@gateway/audit';
import { DEFAULT_JOB_SETTINGS, startOpenBankingJobs, type OpenBankingJobSettings } from './jobs';
import { OPEN_BANKING_ENTITIES } from './entities';
import { migrations } from './migrations';
import { startTestBanks } from '@gateway/bank-sandbox';
import { createOpenBankingModules } from './modules';
import { buildOpenBankingSchema } from './schema';
import type { CoreCallSettings, OpenBankingSettings } from './settings';
import type { PublicJwks } from './signing-keys/jwks';
import { consumeMovementOutcomes } from './payment-order/movement-outcomes';
import { applyVrpMovementOutcome } from './vrp/vrp-movement-outcomes';

export const OPEN_BANKING_SCHEMA = 'open_banking';

/** The options every subgraph takes, and the open-banking service's own. */
export interface OpenBankingStartOptions extends SubgraphStartOptions {
  /** Base of customer-facing URLs (consent_url). Default http://localhost:8080. */
  publicBaseUrl?: string;
  /** Background job timing (tests shorten it). */
  jobs?: Partial<OpenBankingJobSettings>;
  /** Bank core call deadlines (tests shorten them). */
  cores?: Partial<CoreCallSettings>;
  /** SCA time of a payment order above the exemption limit (PAYMENT_ORDER_SCA_TTL_SECONDS); default 15 minutes. */
  scaTtlMs?: number;
  /** PRIVATE_TARGETS: a TPP's webhook_url and bank-core calls may name a loopback, private or link-local address. Default false. */
  webhookPrivateTargets?: boolean;
  /** Bank-core reads one GraphQL request may make (OB_MAX_CORE_CALLS_PER_REQUEST); default 10. */
  maxCoreCallsPerRequest?: number;
  /** OB_DIRECTORY_JWKS: the directory's keys, enabling dynamic client registration (RFC 7591). */
  directoryJwks?: PublicJwks;
  /** DPOP_NONCE_REQUIRED: every DPoP proof must carry a server nonce; default: in production. */
  dpopNoncesRequired?: boolean;
}

/** Starts the open-banking subgraph: migrations, schema, HTTP server, the consent expiry job; with a bus, the outbox relay. */
export async function start(options: OpenBankingStartOptions): Promise<RunningService> {
  await migrateVault(options.db);
  await migrateAudit(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: OPEN_BANKING_SCHEMA,
    entities: OPEN_BANKING_ENTITIES,
    migrations,
    foreignSchemas: ['auth', 'audit'],
  });
  const logger = options.logger ?? createLogger('open-banking');
  // Made before the modules: the account reads' and OTP checks' bank-core clients count their calls in it.
  const registry = createMetricsRegistry('open-banking');
  const settings: OpenBankingSettings = {
    platformSecret: options.platformSecret,
    production: options.production,
    webhookPrivateTargets: options.webhookPrivateTargets,
    publicBaseUrl: options.publicBaseUrl,
    routerUrl: options.routerUrl,
    cores: options.cores,
    scaTtlMs: options.scaTtlMs,
    maxCoreCallsPerRequest: options.maxCoreCallsPerRequest,
    directoryJwks: options.directoryJwks,
    dpopNoncesRequired: options.dpopNoncesRequired,
    logger,
    metrics: registry,
  };
  // The built-in test bank: test consents' reads and OTP checks, for banks without a sandbox core.
  // No confirmations here: rail credits are the payments engine's.
  const testBanks = await startTestBanks({ db: options.db, logger: logger.child({ component: 'test-bank' }) });
  const modules = createOpenBankingModules(settings, testBanks);
  const schema = await buildOpenBankingSchema(settings, modules);
  const server = await startSubgraphServer({
    name: 'open-banking',
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
    registry,
  });
  const jobs = startOpenBankingJobs(
    orm.em,
    modules.consents,
    modules.sca,
    { ...DEFAULT_JOB_SETTINGS, ...options.jobs },
    logger.child({ component: 'jobs' }),
  );
  // Consent and payment order events leave through the bus: webhooks and subscriptions read them there.
  const relayLogger = logger.child({ component: 'outbox-relay' });
  const relay = options.bus
    ? startOutboxRelay({
        orm,
        bus: options.bus,
        onError: (error) => relayLogger.warn({ err: error }, 'events wait in the outbox: the bus refused them'),
      })
    : undefined;
  // The payments engine answers payment orders' movement requests on the bus (docs/payment-orders.md).
  const outcomes = options.bus
    ? await consumeMovementOutcomes(orm.em, options.bus, logger.child({ component: 'payment-orders' }), [
        applyVrpMovementOutcome,
      ])
    : undefined;
  // A bank's changed routing (a rotated internal key) leaves the account reads' cache at once.
  const bankChanges = options.bus
    ? await forgetBankRoutingOnChange(options.bus, modules.directory, logger.child({ component: 'bank-routing' }))
    : undefined;
  return {
    ...server,
    async stop() {
      // No new work, then the requests in flight answer, then the relay publishes what they wrote.
      await jobs.stop();
      await outcomes?.close();
      await bankChanges?.close();
      await server.stop();
      await testBanks.stop();
      await relay?.stop();
    },
  };
}
