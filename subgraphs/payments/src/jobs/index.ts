import type { EntityManager } from '@mikro-orm/postgresql';
import { heartbeatOf } from '@gateway/db';
import { newId, startJob, type Job, type Logger } from '@gateway/kernel';
import { DUE_STEPS } from '../engine/step-table';
import { recoverDue } from '../engine/recovery';
import { idempotency } from '../idempotency/idempotency.service';
import { EVENT_RETENTION_DAYS } from '../event/event.service';
import { deliveries } from '../webhook/delivery.repository';
import type { PaymentsModules } from '../modules';

const EVENT_RETENTION_INTERVAL_MS = 3_600_000;
const EVENT_PRUNE_BATCH = 1000;
/** Idempotency keys are kept 24 hours (a claim ignores older ones); the purge is housekeeping. */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 600_000;
/**
 * Each job's own clock when nothing told it its work is due (issue 53: jobs sleep when idle): the
 * heartbeat's check (below) wakes it when a lease ran out or a session's time is up.
 */
const FALLBACK_INTERVAL_MS = 30_000;

/**
 * Whether each job has work due, asked on the process's heartbeat (one statement with the relays'
 * leases and the webhook worker's check, @gateway/db heartbeat.ts) every `everyMs`: the job's own
 * statements (a claim `for update skip locked`, a batch in a transaction) run only when one says
 * so. Over-estimates are fine (the job finds nothing); each check is one probe of a partial index
 * (payment_executions_due_index, settlement_positions_due_index, payment_sessions_pending_expiry_index).
 */
const DUE_CHECKS = {
  recovery: `exists (select 1 from payments.payment_executions e
    where e.step in (${DUE_STEPS.map((step) => `'${step}'`).join(', ')}) and e.lease_until <= now())`,
  settlement: `exists (select 1 from payments.settlement_positions p where p.status <> 'SETTLED' and p.lease_until <= now())`,
  expiry: `exists (select 1 from payments.payment_sessions s where s.status = 'PENDING' and s.expires_at <= now())`,
};

/** Wakes each job whose check answered true, at most every `everyMs` each. */
function wakeWhenDue(
  root: EntityManager,
  checks: Array<{ name: keyof typeof DUE_CHECKS; everyMs: number; job: Job }>,
): () => void {
  const lastAsked = new Map<string, number>();
  return heartbeatOf(root.getKnex()).join({
    everyMs: Math.min(...checks.map((check) => check.everyMs)),
    sql(p) {
      const now = Date.now();
      const asking = checks.filter((check) => now - (lastAsked.get(check.name) ?? 0) >= check.everyMs - 50);
      if (asking.length === 0) return undefined;
      for (const check of asking) lastAsked.set(check.name, now);
      return {
        ctes: [],
        cteBindings: [],
        columns: asking.map((check) => `${DUE_CHECKS[check.name]} as ${p}${check.name}`),
        columnBindings: [],
      };
    },
    done(columns) {
      for (const check of checks) if (columns?.[check.name] === true) check.job.wake();
    },
  });
}

/**
 * The payments subgraph's background work: session expiry (and Idempotency-Key retention), engine
 * recovery, settlement recovery (positions whose lease or retry timer ran out), and the
 * settlement schedule (SETTLEMENT_INTERVAL_SECONDS; none when 0). The first three run when the
 * heartbeat's check finds their work due (wakeWhenDue), else on a slow fallback clock.
 */
export function startPaymentJobs(root: EntityManager, modules: PaymentsModules, logger: Logger): Job {
  const { engineSettings: settings } = modules;
  const expiry = startJob(
    'session-expiry',
    Math.max(settings.expiryIntervalMs, FALLBACK_INTERVAL_MS),
    async () => {
      const expired = await modules.sessions.expireDue(root);
      if (expired > 0) logger.info({ expired }, 'payment sessions expired');
    },
    logger,
  );
  const idempotencyPurge = startJob(
    'idempotency-purge',
    Math.max(settings.expiryIntervalMs, IDEMPOTENCY_PURGE_INTERVAL_MS),
    () => idempotency.purgeExpired(root),
    logger,
  );
  const recovery = startJob(
    'engine-recovery',
    Math.max(settings.recoveryIntervalMs, FALLBACK_INTERVAL_MS),
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
    Math.max(settings.recoveryIntervalMs, FALLBACK_INTERVAL_MS),
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
  const stopChecks = wakeWhenDue(root, [
    { name: 'recovery', everyMs: settings.recoveryIntervalMs, job: recovery },
    { name: 'settlement', everyMs: settings.recoveryIntervalMs, job: settlementRecovery },
    { name: 'expiry', everyMs: settings.expiryIntervalMs, job: expiry },
  ]);
  return {
    wake() {
      for (const job of [expiry, recovery, settlementRecovery]) job.wake();
    },
    async stop() {
      stopChecks();
      await Promise.all([
        expiry.stop(),
        idempotencyPurge.stop(),
        recovery.stop(),
        settlementRecovery.stop(),
        eventRetention.stop(),
        schedule?.stop(),
      ]);
    },
  };
}
