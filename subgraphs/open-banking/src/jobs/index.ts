import type { EntityManager } from '@mikro-orm/postgresql';
import { startJob, type Job, type Logger } from '@gateway/kernel';
import type { ConsentService } from '../consent/consent.service';
import { requestLostMovements } from '../payment-order/movement-outcomes';
import type { ScaService } from '../payment-order/sca.service';
import { requestLostVrpMovements } from '../vrp/vrp-movement-outcomes';

export interface OpenBankingJobSettings {
  /** How often consents past expires_at are moved to EXPIRED. */
  consentExpiryIntervalMs: number;
  /** How often payment orders waiting for the payments engine are checked. */
  movementSweepIntervalMs: number;
  /** A PROCESSING order without the engine's answer for this long is requested again (same id). */
  movementRequestAgainAfterMs: number;
  /** How often PENDING_SCA orders past their SCA time are failed. */
  scaExpiryIntervalMs: number;
}

export const DEFAULT_JOB_SETTINGS: OpenBankingJobSettings = {
  consentExpiryIntervalMs: 30_000,
  movementSweepIntervalMs: 30_000,
  movementRequestAgainAfterMs: 120_000,
  scaExpiryIntervalMs: 30_000,
};

/** The open-banking subgraph's background work: consent expiry (consent.expired), payment orders' lost movement requests, and SCA expiry. */
export function startOpenBankingJobs(
  root: EntityManager,
  consents: ConsentService,
  sca: ScaService,
  settings: OpenBankingJobSettings,
  logger: Logger,
): Job {
  const expiry = startJob(
    'consent-expiry',
    settings.consentExpiryIntervalMs,
    async () => {
      const expired = await consents.expireDue(root);
      if (expired > 0) logger.info({ expired }, 'consents expired');
    },
    logger,
  );
  const sweep = startJob(
    'payment-order-movements',
    settings.movementSweepIntervalMs,
    async () => {
      const asked = await requestLostMovements(root, settings.movementRequestAgainAfterMs);
      if (asked > 0) logger.warn({ asked }, 'payment orders without an answer from payments: movement requested again');
      const askedVrp = await requestLostVrpMovements(root, settings.movementRequestAgainAfterMs);
      if (askedVrp > 0)
        logger.warn({ asked: askedVrp }, 'VRP payments without an answer from payments: movement requested again');
    },
    logger,
  );
  const scaExpiry = startJob(
    'payment-order-sca-expiry',
    settings.scaExpiryIntervalMs,
    async () => {
      const expired = await sca.expireDue(root);
      if (expired > 0) logger.info({ expired }, 'payment orders not authorised in time: FAILED');
    },
    logger,
  );
  return {
    wake() {
      for (const job of [expiry, sweep, scaExpiry]) job.wake();
    },
    async stop() {
      await expiry.stop();
      await sweep.stop();
      await scaExpiry.stop();
    },
  };
}
