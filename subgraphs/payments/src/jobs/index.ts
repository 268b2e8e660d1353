import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, startJob, type Job, type Logger } from '@gateway/kernel';
import { recoverDue } from '../engine/recovery';
import { idempotency } from '../idempotency/idempotency.service';
import type { PaymentsModules } from '../modules';

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
      await Promise.all([expiry.stop(), recovery.stop(), settlementRecovery.stop(), schedule?.stop()]);
    },
  };
}
