import type { Knex } from '@mikro-orm/knex';
import { openSealedSecret, type Logger } from '@gateway/kernel';
import { deliveries, type ClaimedDelivery } from './delivery.repository';
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
  /** Whether an attempt for this merchant may start now (global and per-merchant caps). */
  hasRoomFor(merchantId: string): boolean;
  /** A lease for a delivery claimed at insertion. */
  newLease(): Date;
  /** Starts the attempt of a delivery claimed at insertion, with the target read moments ago. */
  launch(delivery: ClaimedDelivery, target: DeliveryTarget): void;
  stop(): Promise<void>;
}

/** Where a delivery goes and the secret that signs it, as read for one attempt. */
export interface DeliveryTarget {
  url: string | null;
  secret: string | null;
}

/** The current target of an event for a merchant: the session's own URL first, else the merchant's. One query. */
export async function lookupTarget(knex: Knex, merchantId: string, aggregateId: string, platformSecret: string): Promise<DeliveryTarget | null> {
  const row = await deliveries.targetOf(knex, merchantId, aggregateId);
  if (!row) return null;
  return { url: row.session_url ?? row.merchant_url, secret: openSealedSecret(row.sealed, platformSecret) };
}

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
    const due = await deliveries.due(knex, CANDIDATES);
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
    // The lease is set from a JS Date (millisecond precision), so the recording step can match it exactly.
    return deliveries.claim(knex, picked, new Date(Date.now() + leaseMs));
  };

  const attempt = async (delivery: ClaimedDelivery, known?: DeliveryTarget): Promise<void> => {
    const number = delivery.attempts + 1;
    const startedAt = new Date();
    let url: string | null = null;
    let outcome: AttemptOutcome;
    try {
      const found = known ?? (await lookupTarget(knex, delivery.merchant_id, delivery.aggregate_id, options.platformSecret)) ?? { url: null, secret: null };
      url = found.url;
      const problem = !url ? 'the merchant has no webhook URL' : deliveryTargetProblem(url, options.production);
      outcome = problem
        ? { error: problem, durationMs: 0 }
        : await sender.post(url!, delivery.payload, signedHeaders(delivery.payload, delivery.event_id, found.secret!, startedAt));
    } catch (error) {
      logger.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be prepared');
      outcome = { error: 'internal error preparing the attempt', durationMs: 0 };
    }
    if (stopped) return; // shutting down: the lease lapses and another worker tries again

    const delivered = isSuccess(outcome);
    const next = delivered ? null : nextAttemptAt(number, options.retryScheduleSeconds, new Date());
    const status = delivered ? 'DELIVERED' : next ? 'PENDING' : 'FAILED';
    // Recorded only if this worker still held the lease (a manual retry resets it; an attempt that outlived its lease lost it).
    await deliveries.recordAttempt(knex, delivery, {
      number,
      status,
      url,
      statusCode: outcome.statusCode ?? null,
      error: outcome.error ?? null,
      startedAt,
      durationMs: outcome.durationMs,
      nextAttemptAt: next,
      deliveredAt: delivered ? new Date() : null,
    });
    logger.info({ delivery: delivery.id, event: delivery.event_id, attempt: number, status, statusCode: outcome.statusCode, error: outcome.error }, 'webhook attempt');
  };

  const launch = (delivery: ClaimedDelivery, known?: DeliveryTarget) => {
    merchantLoad.set(delivery.merchant_id, (merchantLoad.get(delivery.merchant_id) ?? 0) + 1);
    const running: Promise<void> = attempt(delivery, known)
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
    hasRoomFor: (merchantId) => !stopped && inFlight.size < maxInFlight && (merchantLoad.get(merchantId) ?? 0) < perMerchant,
    newLease: () => new Date(Date.now() + leaseMs),
    launch: (delivery, target) => launch(delivery, target),
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
