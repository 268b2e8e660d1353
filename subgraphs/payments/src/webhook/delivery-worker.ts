import type { Knex } from '@mikro-orm/knex';
import { GatewayError, type Logger } from '@gateway/kernel';
import type { DeliveryTarget, TargetLookup } from './delivery-target';
import { deliveries, type ClaimedDelivery } from './delivery.repository';
import { nextAttemptAt } from './retry-schedule';
import { signedHeaders } from './signature';
import { deliveryTargetProblem } from './webhook-target';
import type { AttemptOutcome, WebhookSender } from './webhook-sender';

export interface DeliveryWorkerOptions {
  knex: Knex;
  sender: WebhookSender;
  /** The audience's current URL and secret (merchant or TPP), read for every attempt. */
  lookupTarget: TargetLookup;
  production: boolean;
  retryScheduleSeconds: readonly number[];
  /** The longest one attempt can take: a claim lasts this long plus a margin. */
  attemptTimeoutMs: number;
  logger: Logger;
  /** How often due retries are looked for when nothing woke the worker. */
  pollIntervalMs?: number;
  /** Attempts in flight in this process, all audiences together. */
  maxInFlight?: number;
  /** Attempts in flight for one audience (merchant or TPP): a slow receiver occupies at most this many. */
  maxInFlightPerAudience?: number;
}

export interface DeliveryWorker {
  wake(): void;
  /** Whether an attempt for this audience may start now (global and per-audience caps). */
  hasRoomFor(audienceId: string): boolean;
  /** A lease for a delivery claimed at insertion. */
  newLease(): Date;
  /** Starts the attempt of a delivery claimed at insertion, with the target read moments ago. */
  launch(delivery: ClaimedDelivery, target: DeliveryTarget): void;
  stop(): Promise<void>;
}

const CANDIDATES = 500;

const isSuccess = (outcome: AttemptOutcome) => outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;

/**
 * Sends due webhook deliveries. Each attempt is claimed in the database with a lease (several
 * payments instances share the work; a crashed worker's claims lapse and are taken over), made
 * outside any transaction, and recorded with its outcome. Attempts run concurrently, capped per
 * audience, so a receiver that answers slowly holds up nobody else.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { knex, sender, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const maxInFlight = options.maxInFlight ?? 200;
  const perAudience = options.maxInFlightPerAudience ?? 10;
  const leaseMs = options.attemptTimeoutMs + 30_000;

  const inFlight = new Set<Promise<void>>();
  const audienceLoad = new Map<string, number>();
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

  /** Due deliveries this process may take now, within the global and per-audience caps. */
  const claim = async (): Promise<ClaimedDelivery[]> => {
    const room = maxInFlight - inFlight.size;
    if (room <= 0) return [];
    const due = await deliveries.due(knex, CANDIDATES);
    const picked: string[] = [];
    const load = new Map(audienceLoad);
    for (const row of due) {
      const taken = load.get(row.audience_id) ?? 0;
      if (taken >= perAudience) continue;
      load.set(row.audience_id, taken + 1);
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
      const found = known ?? (await options.lookupTarget(delivery.audience_id, delivery.aggregate_id)) ?? { url: null, secret: null };
      url = found.url;
      const problem = !url ? 'no webhook URL is set' : deliveryTargetProblem(url, options.production);
      outcome = problem
        ? { error: problem, durationMs: 0 }
        : await sender.post(url!, delivery.payload, signedHeaders(delivery.payload, delivery.event_id, found.secret!, startedAt));
    } catch (error) {
      if (error instanceof GatewayError) {
        // The TPP's target comes through the router: while it is unreachable the attempt counts
        // as failed and is retried on the schedule, like a receiver that does not answer.
        logger.warn({ err: error, delivery: delivery.id }, 'webhook target could not be read');
        outcome = { error: `webhook target could not be read (${error.code})`, durationMs: 0 };
      } else {
        logger.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be prepared');
        outcome = { error: 'internal error preparing the attempt', durationMs: 0 };
      }
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
    audienceLoad.set(delivery.audience_id, (audienceLoad.get(delivery.audience_id) ?? 0) + 1);
    const running: Promise<void> = attempt(delivery, known)
      .catch((error) => logger.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        inFlight.delete(running);
        const left = (audienceLoad.get(delivery.audience_id) ?? 1) - 1;
        if (left > 0) audienceLoad.set(delivery.audience_id, left);
        else audienceLoad.delete(delivery.audience_id);
        // A slot freed: more may be due for this audience.
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
    hasRoomFor: (audienceId) => !stopped && inFlight.size < maxInFlight && (audienceLoad.get(audienceId) ?? 0) < perAudience,
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
