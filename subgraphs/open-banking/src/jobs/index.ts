import type { EntityManager } from '@mikro-orm/postgresql';
import { startJob, type Job, type Logger } from '@gateway/kernel';
import type { ConsentService } from '../consent/consent.service';

export interface OpenBankingJobSettings {
  /** How often consents past expires_at are moved to EXPIRED. */
  consentExpiryIntervalMs: number;
}

export const DEFAULT_JOB_SETTINGS: OpenBankingJobSettings = { consentExpiryIntervalMs: 30_000 };

/** The open-banking subgraph's background work: consent expiry (consent.expired). */
export function startOpenBankingJobs(root: EntityManager, consents: ConsentService, settings: OpenBankingJobSettings, logger: Logger): Job {
  return startJob(
    'consent-expiry',
    settings.consentExpiryIntervalMs,
    async () => {
      const expired = await consents.expireDue(root);
      if (expired > 0) logger.info({ expired }, 'consents expired');
    },
    logger,
  );
}
