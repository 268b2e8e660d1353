import type { Knex } from '@mikro-orm/knex';
import { openSealedSecret, type Logger } from '@gateway/kernel';
import { nextAttemptAt } from './retry-schedule';
import { signedHeaders } from './signature';
import { deliveryTargetProblem } from './webhook-target';
import type { AttemptOutcome, WebhookSender } from './webhook-sender';

export interface DeliveryWorkerOptions {
  knex: Knex;
  sender: WebhookSender;
  platformSecret: string;
  production: boolean;
  retryScheduleSeconds: readonly number[];
  /** The longest one attempt can take: a claim lasts this long plus a margin. */
  attemptTimeoutMs: number;
  logger: Logger;
  /** How often due retries are looked for when nothing woke the worker. */
  pollIntervalMs?: number;
  /** Attempts in flight in this process, all merchants together. */
  maxInFlight?: number;
  /** Attempts in flight for one merchant: a slow receiver occupies at most this many. */
  maxInFlightPerMerchant?: number;
}

export interface DeliveryWorker {
  wake(): void;
  stop(): Promise<void>;
}

interface ClaimedDelivery {
  id: string;
  event_id: string;
  merchant_id: string;
  aggregate_id: string;
  payload: string;
  attempts: number;
  lease_until: Date;
}

const DELIVERIES = 'payments.webhook_deliveries';
const ATTEMPTS = 'payments.webhook_attempts';
const CANDIDATES = 500;

const isSuccess = (outcome: AttemptOutcome) => outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;

/**
 * Sends due webhook deliveries. Each attempt is claimed in the database with a lease (several
 * payments instances share the work; a crashed worker's claims lapse and are taken over), made
 * outside any transaction, and recorded with its outcome. Attempts run concurrently, capped per
 * merchant, so a receiver that answers slowly holds up nobody else.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { knex, sender, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const maxInFlight = options.maxInFlight ?? 200;
  const perMerchant = options.maxInFlightPerMerchant ?? 10;
  const leaseMs = options.attemptTimeoutMs + 30_000;

  const inFlight = new Set<Promise<void>>();
  const merchantLoad = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
    timer.unref();
  };

  /** Due deliveries this process may take now, within the global and per-merchant caps. */
  const claim = async (): Promise<ClaimedDelivery[]> => {
    const room = maxInFlight - inFlight.size;
    if (room <= 0) return [];
    const due: Array<{ id: string; merchant_id: string }> = (
      await knex.raw(
        `select id, merchant_id from ${DELIVERIES}
         where status = 'PENDING' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
         order by next_attempt_at limit ?`,
        [CANDIDATES],
      )
    ).rows;
    const picked: string[] = [];
    const load = new Map(merchantLoad);
    for (const row of due) {
      const taken = load.get(row.merchant_id) ?? 0;
      if (taken >= perMerchant) continue;
      load.set(row.merchant_id, taken + 1);
      picked.push(row.id);
      if (picked.length >= room) break;
    }
    if (!picked.length) return [];
    // The lease is re-checked under the row lock: of two workers racing for a row, one gets it.
    return (
      await knex.raw(
        `update ${DELIVERIES} set lease_until = ?
         where id = any(?::text[]) and status = 'PENDING' and (lease_until is null or lease_until < now())
         returning id, event_id, merchant_id, aggregate_id, payload, attempts, lease_until`,
        // Set from a JS Date (millisecond precision), so the recording step can match it exactly.
        [new Date(Date.now() + leaseMs), picked],
      )
    ).rows;
  };

  /** Where the event goes now and with which secret: the session's own URL first, else the merchant's. */
  const target = async (delivery: ClaimedDelivery): Promise<{ url: string | null; secret: string | null }> => {
    const merchant = await knex('payments.merchants').select('webhook_url', 'webhook_secret_sealed').where({ id: delivery.merchant_id }).first();
    if (!merchant) return { url: null, secret: null };
    const session = await knex('payments.payment_sessions').select('webhook_url').where({ id: delivery.aggregate_id }).first();
    return { url: session?.webhook_url ?? merchant.webhook_url, secret: openSealedSecret(merchant.webhook_secret_sealed, options.platformSecret) };
  };

  const attempt = async (delivery: ClaimedDelivery): Promise<void> => {
    const number = delivery.attempts + 1;
    const startedAt = new Date();
    let url: string | null = null;
    let outcome: AttemptOutcome;
    try {
      const found = await target(delivery);
      url = found.url;
      const problem = !url ? 'the merchant has no webhook URL' : deliveryTargetProblem(url, options.production);
      outcome = problem ? { error: problem, durationMs: 0 } : await sender.post(url!, delivery.payload, signedHeaders(delivery.payload, delivery.event_id, found.secret!, startedAt));
    } catch (error) {
      logger.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be prepared');
      outcome = { error: 'internal error preparing the attempt', durationMs: 0 };
    }
    if (stopped) return; // shutting down: the lease lapses and another worker tries again

    const delivered = isSuccess(outcome);
    const next = delivered ? null : nextAttemptAt(number, options.retryScheduleSeconds, new Date());
    const status = delivered ? 'DELIVERED' : next ? 'PENDING' : 'FAILED';
    await knex.transaction(async (trx) => {
      const updated = await trx(DELIVERIES)
        .where({ id: delivery.id, lease_until: delivery.lease_until })
        .update({
          status,
          attempts: number,
          url,
          last_status_code: outcome.statusCode ?? null,
          last_error: outcome.error ?? null,
          next_attempt_at: next,
          lease_until: null,
          delivered_at: delivered ? new Date() : null,
          updated_at: new Date(),
        });
      // Lost the lease (a manual retry reset it, or this attempt outlived it): another attempt owns the record now.
      if (!updated) return;
      await trx(ATTEMPTS).insert({
        delivery_id: delivery.id,
        number,
        url,
        started_at: startedAt,
        duration_ms: outcome.durationMs,
        status_code: outcome.statusCode ?? null,
        error: outcome.error ?? null,
      });
    });
    logger.info({ delivery: delivery.id, event: delivery.event_id, attempt: number, status, statusCode: outcome.statusCode, error: outcome.error }, 'webhook attempt');
  };

  const launch = (delivery: ClaimedDelivery) => {
    merchantLoad.set(delivery.merchant_id, (merchantLoad.get(delivery.merchant_id) ?? 0) + 1);
    const running: Promise<void> = attempt(delivery)
      .catch((error) => logger.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        inFlight.delete(running);
        const left = (merchantLoad.get(delivery.merchant_id) ?? 1) - 1;
        if (left > 0) merchantLoad.set(delivery.merchant_id, left);
        else merchantLoad.delete(delivery.merchant_id);
        // A slot freed: more may be due for this merchant.
        worker.wake();
      });
    inFlight.add(running);
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    again = false;
    let next = pollIntervalMs;
    claiming = (async () => {
      try {
        const claimed = await claim();
        for (const delivery of claimed) launch(delivery);
        if (claimed.length && inFlight.size < maxInFlight) next = 0;
      } catch (error) {
        if (!stopped) logger.error({ err: error }, 'webhook deliveries could not be claimed');
      }
    })();
    await claiming;
    claiming = undefined;
    schedule(again ? 0 : next);
  };

  const worker: DeliveryWorker = {
    wake() {
      if (stopped) return;
      if (claiming) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await claiming;
      // Attempts in flight are abandoned unrecorded (their leases lapse); their HTTP calls end with the sender.
    },
  };
  schedule(0);
  return worker;
}
