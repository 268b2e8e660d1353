import type { Knex } from '@mikro-orm/knex';
import type { EventBus, PlatformEvent, Subscription } from '@gateway/events';
import { newId, type Logger } from '@gateway/kernel';
import { lookupTarget, startDeliveryWorker, type DeliveryWorker } from './delivery-worker';
import { deliveries } from './delivery.repository';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from './retry-schedule';
import { serializeEnvelope } from './signature';
import { createWebhookSender, DEFAULT_ATTEMPT_TIMEOUT_MS } from './webhook-sender';

/** The bus consumer group: every payments instance competes for the same queue. */
export const WEBHOOK_CONSUMER_GROUP = 'webhooks';
export const WEBHOOK_EVENT_PATTERN = 'payment.*';

export interface WebhookDispatcherOptions {
  knex: Knex;
  bus: EventBus;
  platformSecret: string;
  production: boolean;
  logger: Logger;
  retryScheduleSeconds?: readonly number[];
  attemptTimeoutMs?: number;
  pollIntervalMs?: number;
}

export interface WebhookDispatcher {
  /** Look for due deliveries now (after a manual retry). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Turns payment events into webhook deliveries and sends them. Intake is quick (one row per event
 * and merchant, a duplicate event is a no-op) so the bus is acknowledged at once; the sending is
 * the worker's, at its own pace, retried on the schedule.
 */
export async function startWebhookDispatcher(options: WebhookDispatcherOptions): Promise<WebhookDispatcher> {
  const { knex, logger } = options;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const sender = createWebhookSender({ production: options.production, timeoutMs: attemptTimeoutMs });
  const worker: DeliveryWorker = startDeliveryWorker({
    knex,
    sender,
    logger,
    platformSecret: options.platformSecret,
    production: options.production,
    retryScheduleSeconds: options.retryScheduleSeconds ?? DEFAULT_RETRY_SCHEDULE_SECONDS,
    attemptTimeoutMs,
    pollIntervalMs: options.pollIntervalMs,
  });

  const intake = async (event: PlatformEvent): Promise<void> => {
    const merchantId = event.audience;
    if (!merchantId) return; // an event for nobody in particular: no webhook
    const target = await lookupTarget(knex, merchantId, event.aggregateId, options.platformSecret);
    // An unknown merchant, or neither the session nor the merchant names an endpoint: nothing to deliver.
    if (!target?.url) return;
    const now = new Date();
    // With room for it, this worker claims the delivery as it creates it and sends at once.
    const claimNow = worker.hasRoomFor(merchantId);
    const leaseUntil = claimNow ? worker.newLease() : null;
    // At least once: a second copy of an event inserts nothing (and is not sent again).
    const delivery = await deliveries.insert(knex, {
      id: newId('delivery'),
      eventId: event.id,
      eventKind: event.kind,
      merchantId,
      aggregateId: event.aggregateId,
      payload: serializeEnvelope({ id: event.id, event: event.kind, created_at: event.createdAt, data: event.data }),
      leaseUntil,
      now,
    });
    if (delivery && claimNow) worker.launch({ ...delivery, lease_until: leaseUntil! }, target);
    else worker.wake();
  };

  const subscription: Subscription = await options.bus.consume(WEBHOOK_CONSUMER_GROUP, WEBHOOK_EVENT_PATTERN, intake);
  return {
    wake: () => worker.wake(),
    async stop() {
      await subscription.close();
      await worker.stop();
      await sender.close();
    },
  };
}
