import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, startJob, type Job, type Logger } from '@gateway/kernel';
import { recoverDue } from '../engine/recovery';
import { idempotency } from '../idempotency/idempotency.service';
import { EVENT_RETENTION_DAYS } from '../event/event.service';
import { deliveries } from '../webhook/delivery.repository';
import type { PaymentsModules } from '../modules';

const EVENT_RETENTION_INTERVAL_MS = 3_600_000;
const EVENT_PRUNE_BATCH = 1000;

/**
 * The payments subgraph's background work: session expiry (and Idempotency-Key retention), engine
 * recovery, settlement recovery (positions whose lease or retry timer ran out), and the
 * settlement schedule (SETTLEMENT_INTERVAL_SECONDS; none when 0).
 */
export function startPaymentJobs(root: EntityManager, modules: PaymentsModules, logger: Logger): Job {
  const { engineSettings: settings } = modules;
  const expiry = startJob(
    'session-expiry',
    settings.expiryIntervalMs,
    async () => {
      const expired = await modules.sessions.expireDue(root);
      if (expired > 0) logger.info({ expired }, 'payment sessions expired');
      await idempotency.purgeExpired(root);
    },
    logger,
  );
  const recovery = startJob(
    'engine-recovery',
    settings.recoveryIntervalMs,
    async () => {
      const resumed = await recoverDue(root, modules.engine, settings.leaseMs);
      // Each with the request that authorized it, so a take-over can be traced to the payer's call.
      for (const { movementId, requestId } of resumed)
        logger.info({ movement: movementId, request_id: requestId }, 'payment execution resumed');
    },
    logger,
  );
  const settlementRecovery = startJob(
    'settlement-recovery',
    settings.recoveryIntervalMs,
    async () => {
      const resumed = await modules.settlement.recoverDue(root);
      for (const key of resumed)
        logger.info(
          { cycle: key.cycleId, bank: key.bankHandle, currency: key.currency },
          'settlement position taken up',
        );
    },
    logger,
  );
  // The event log keeps 30 days (API-CONTRACT "Webhook endpoints and events"), and so does the
  // delivery log once a delivery is settled; pruned in batches, hourly.
  const eventRetention = startJob(
    'event-retention',
    EVENT_RETENTION_INTERVAL_MS,
    async () => {
      const before = new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000);
      const pruned = { events: 0, deliveries: 0 };
      let batch: { events: number; deliveries: number };
      do {
        batch = await deliveries.pruneLog(root.getKnex(), before, EVENT_PRUNE_BATCH);
        pruned.events += batch.events;
        pruned.deliveries += batch.deliveries;
      } while (batch.events === EVENT_PRUNE_BATCH || batch.deliveries === EVENT_PRUNE_BATCH);
      if (pruned.events + pruned.deliveries > 0)
        logger.info(pruned, 'webhook events and settled deliveries past retention pruned');
    },
    logger,
  );
  const { intervalMs } = modules.settlementSettings;
  const schedule =
    intervalMs > 0
      ? startJob(
          'settlement-schedule',
          intervalMs,
          async () => {
            const cycle = await modules.settlement.trigger(root, 'schedule', newId('request'));
            if (cycle)
              logger.info(
                { cycle: cycle.id, status: cycle.status, obligations: cycle.obligationCount },
                'scheduled settlement cycle',
              );
          },
          logger,
        )
      : undefined;
  return {
    async stop() {
      await Promise.all([
        expiry.stop(),
        recovery.stop(),
        settlementRecovery.stop(),
        eventRetention.stop(),
        schedule?.stop(),
      ]);
    },
  };
}
