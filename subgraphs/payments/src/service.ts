import { openServiceOrm, type ServiceOrm } from '@gateway/db';
import {
  forgetBankRoutingOnChange,
  startSubgraphServer,
  type RunningService,
  type SubgraphStartOptions,
} from '@gateway/federation';
import { createLogger, createMetricsRegistry, type Logger } from '@gateway/kernel';
import { OutboxEvent, startOutboxRelay, type EventBus } from '@gateway/events';
import { migrateVault, Credential } from '@gateway/vault';
import { AuditEntry, migrateAudit } from '@gateway/audit';
import { CreditConfirmationEntity } from './confirmation/confirmation.entity';
import { engineSettingsFromEnv, type EngineSettings } from './engine/engine.settings';
import { PaymentExecutionEntity } from './engine/execution.entity';
import { IdempotencyKeyEntity } from './idempotency/idempotency.entity';
import { startPaymentJobs } from './jobs';
import { MerchantEntity } from './merchant/merchant.entity';
import { MandateChargeEntity, MandateEntity } from './mandate/mandate.entity';
import { migrations } from './migrations';
import { createPaymentsModules, type PaymentsModules } from './modules';
import { Gauge, type Registry } from 'prom-client';
import { InterbankObligationEntity } from './obligation/obligation.entity';
import { buildPaymentsSchema } from './schema';
import { unsettledPerBank } from './obligation/obligation.service';
import { everyPosition, type PositionRow } from './net-debit/net-debit.positions';
import { PaymentSessionEntity } from './session/session.entity';
import { RefundEntity } from './refund/refund.entity';
import { SettlementCycleEntity } from './settlement/cycle.entity';
import { SettlementPositionEntity } from './settlement/position.entity';
import { DEFAULT_SETTLEMENT_INTERVAL_SECONDS, type SettlementSettings } from './settlement/settlement.settings';
import { WebhookAttemptEntity, WebhookDeliveryEntity } from './webhook/webhook-delivery.entity';
import { WebhookEventEntity } from './webhook/webhook-event.entity';
import { WebhookEndpointEntity } from './webhook-endpoint/webhook-endpoint.entity';
import { startWebhookDispatcher } from './webhook/webhook-dispatcher';
import { OrderMovementEntity } from './order-movement/order-movement.entity';
import { VrpMovementEntity } from './vrp-movement/vrp-movement.entity';
import { consumeMovementRequests } from './order-movement/movement-requests';
import { startTestBanks } from '@gateway/bank-sandbox';
import { testConfirmationInput } from './confirmation/test-confirmation';

export const PAYMENTS_SCHEMA = 'payments';

/** Payment sessions and the engine's tables. */
const SESSION_ENTITIES = [
  PaymentSessionEntity,
  PaymentExecutionEntity,
  IdempotencyKeyEntity,
  InterbankObligationEntity,
  CreditConfirmationEntity,
  SettlementCycleEntity,
  SettlementPositionEntity,
  OrderMovementEntity,
  VrpMovementEntity,
  MandateEntity,
  MandateChargeEntity,
  RefundEntity,
];

/** The options every subgraph takes, and the payments service's own. */
export interface PaymentsStartOptions extends SubgraphStartOptions {
  /** Base of customer-facing URLs (checkout_url). Default http://localhost:8080. */
  publicBaseUrl?: string;
  /** Payment session TTL. Default 900 (15 minutes). */
  sessionTtlSeconds?: number;
  /** Pauses between webhook retries, in seconds (WEBHOOK_RETRY_SCHEDULE); unset: the built-in schedule. */
  webhookRetryScheduleSeconds?: number[];
  /** PRIVATE_TARGETS: webhooks and bank-core calls may go to loopback, private and link-local addresses. Default false: public addresses only. */
  webhookPrivateTargets?: boolean;
  /** Deadline of one webhook attempt (10 s unless a test shortens it). */
  webhookAttemptTimeoutMs?: number;
  /** Payment engine and job timing (tests shorten them). */
  engine?: Partial<EngineSettings>;
  /** A settlement cycle runs this often (SETTLEMENT_INTERVAL_SECONDS); 0: only on demand. Default 3600. */
  settlementIntervalSeconds?: number;
  /** Settlement timing besides the interval (tests shorten them). */
  settlement?: Partial<Omit<SettlementSettings, 'intervalMs'>>;
}

/**
 * Starts the payments subgraph: migrations, schema, HTTP server, the session expiry and engine
 * recovery jobs; with a bus, the outbox relay and webhooks.
 */
export async function start(options: PaymentsStartOptions): Promise<RunningService> {
  await migrateVault(options.db);
  await migrateAudit(options.db);
  const orm = await openServiceOrm(options.db, {
    schema: PAYMENTS_SCHEMA,
    entities: [
      MerchantEntity,
      Credential,
      AuditEntry,
      OutboxEvent,
      WebhookDeliveryEntity,
      WebhookAttemptEntity,
      WebhookEventEntity,
      WebhookEndpointEntity,
      ...SESSION_ENTITIES,
    ],
    migrations,
    foreignSchemas: ['auth', 'audit'],
  });
  const logger = options.logger ?? createLogger('payments');
  // Made before the modules: the engine's bank-core clients count their calls in it.
  const registry = createMetricsRegistry('payments');
  const settings = {
    platformSecret: options.platformSecret,
    production: options.production,
    webhookPrivateTargets: options.webhookPrivateTargets ?? false,
    publicBaseUrl: options.publicBaseUrl,
    sessionTtlSeconds: options.sessionTtlSeconds,
    routerUrl: options.routerUrl,
    // The environment sets what an operator tunes; the caller (tests) has the last word.
    engine: { ...engineSettingsFromEnv(), ...options.engine },
    settlement: {
      ...options.settlement,
      intervalMs: (options.settlementIntervalSeconds ?? DEFAULT_SETTLEMENT_INTERVAL_SECONDS) * 1000,
    },
    logger,
    metrics: registry,
  };
  // The built-in test bank: test objects' core calls, for every bank without a sandbox core of its
  // own. Its rail credits are confirmed in process, as test confirmations only (a handle's first
  // core call, after the modules exist, is what starts its confirmations).
  const testBanks = await startTestBanks({
    db: options.db,
    logger: logger.child({ component: 'test-bank' }),
    confirm: async (handle, body) => {
      await modules.confirmations.confirm(orm.em.fork(), handle, testConfirmationInput(body), false);
    },
  });
  const modules = createPaymentsModules(settings, testBanks);
  const schema = await buildPaymentsSchema(settings, modules);
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
    readinessChecks: options.readinessChecks,
    metricsToken: options.metricsToken,
    registry,
    metrics: (registry) => paymentsMetrics(registry, orm, modules),
  });
  // The jobs first: engine recovery (a movement whose process died) must not wait for the bus's
  // consumers, which wait for the broker; the events they write wait in the outbox for the relay.
  const jobs = startPaymentJobs(orm.em, modules, logger);
  const events = options.bus ? await startEvents(orm, options.bus, options, modules, logger) : undefined;
  if (events) modules.webhooks.attachDispatcher(events.dispatcher);
  if (events) modules.webhookEndpoints.attachDispatcher(events.dispatcher);
  // Open Banking payment orders and VRP payments reach the engine as movement.requested (docs/payment-orders.md).
  const requests = options.bus
    ? await consumeMovementRequests(orm.em, options.bus, modules.engine, logger.child({ component: 'order-movements' }))
    : undefined;
  // A bank's changed routing (a rotated internal key) leaves the engine's cache at once.
  const bankChanges = options.bus
    ? await forgetBankRoutingOnChange(options.bus, modules.directory, logger.child({ component: 'bank-routing' }))
    : undefined;
  return {
    ...server,
    /**
     * No new work first (movement requests, the recovery, expiry and settlement jobs claim no
     * more), then the HTTP server closes and lets the requests in flight answer, then the engine's
     * runs get one lease length to end. A step still waiting on a core after that records
     * nothing; its lease, no longer renewed, lets another process resume it within leaseMs. The
     * relay goes last, so the events of those last requests and runs are already on the bus.
     */
    async stop() {
      await requests?.close();
      await bankChanges?.close();
      await jobs.stop();
      await server.stop();
      const idle = await modules.engine.idle(modules.engineSettings.leaseMs);
      if (!idle)
        logger.warn('payment runs still waiting on a core at shutdown: their leases let another process resume them');
      modules.engine.stop();
      modules.settlementRunner.stop();
      await testBanks.stop();
      await events?.stop();
    },
  };
}

/** Gauges an operator alerts on, read from the database at each scrape. */
function paymentsMetrics(registry: Registry, orm: ServiceOrm, modules: PaymentsModules): void {
  new Gauge({
    name: 'payments_movements_needing_attention',
    help: 'Payment movements the engine could not settle and handed to an operator (GET /admin/attention)',
    registers: [registry],
    async collect() {
      this.set(await modules.attention.count(orm.em.fork()));
    },
  });
  new Gauge({
    name: 'payments_unsettled_obligations',
    help: 'Interbank obligations whose money has not moved at the bank yet: not in a settlement cycle, or in one whose position for the bank is not SETTLED',
    labelNames: ['bank'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const { bank, count } of await unsettledPerBank(orm.em.fork())) this.set({ bank }, count);
    },
  });
  // Net debit caps (issue 48): each gauge reads the rows at its scrape (a row per bank, currency and world).
  const labelsOf = (row: PositionRow) => ({
    bank: row.bankHandle,
    currency: row.currency,
    mode: row.livemode ? 'live' : 'test',
  });
  new Gauge({
    name: 'payments_net_debit_position',
    help: "A bank's net debit position in minor units: owed minus owed to it in obligations no cycle has taken, plus reservations in flight",
    labelNames: ['bank', 'currency', 'mode'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await everyPosition(orm.em.fork())) this.set(labelsOf(row), Number(row.position));
    },
  });
  new Gauge({
    name: 'payments_net_debit_headroom',
    help: "A capped bank's net debit cap minus what it owes unsettled (not below 0) and its reservations, in minor units (negative after a cap was lowered below it)",
    labelNames: ['bank', 'currency', 'mode'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await everyPosition(orm.em.fork()))
        if (row.netDebitCap !== null) this.set(labelsOf(row), Number(row.netDebitCap - row.exposure));
    },
  });
}

/**
 * The payments outbox relay and the webhook dispatcher. The dispatcher's queue is declared first,
 * so the relay's first events already have somewhere to go.
 */
async function startEvents(
  orm: ServiceOrm,
  bus: EventBus,
  options: PaymentsStartOptions,
  modules: PaymentsModules,
  logger: Logger,
) {
  const dispatcher = await startWebhookDispatcher({
    knex: orm.em.getKnex(),
    bus,
    platformSecret: options.platformSecret,
    call: modules.call,
    production: options.production,
    privateTargets: options.webhookPrivateTargets ?? false,
    logger: logger.child({ component: 'webhooks' }),
    retryScheduleSeconds: options.webhookRetryScheduleSeconds,
    attemptTimeoutMs: options.webhookAttemptTimeoutMs,
    // One lease length for all work an instance can die holding (issue 17: taken over in seconds).
    leaseMs: modules.engineSettings.leaseMs,
  });
  const relayLogger = logger.child({ component: 'outbox-relay' });
  const relay = startOutboxRelay({
    orm,
    bus,
    onError: (error) => relayLogger.warn({ err: error }, 'events wait in the outbox: the bus refused them'),
  });
  return {
    dispatcher,
    async stop() {
      await relay.stop();
      await dispatcher.stop();
    },
  };
}
