import type { Knex } from '@mikro-orm/knex';
import type { EventBus, PlatformEvent, Subscription } from '@gateway/events';
import { newId, type Logger } from '@gateway/kernel';
import { startDeliveryWorker, type DeliveryWorker } from './delivery-worker';
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
    const merchant = await knex('payments.merchants').select('id', 'webhook_url').where({ id: merchantId }).first();
    if (!merchant) return;
    const session = event.aggregateType === 'payment_session' ? await knex('payments.payment_sessions').select('webhook_url').where({ id: event.aggregateId }).first() : undefined;
    // Neither the session nor the merchant names an endpoint: nothing to deliver, now or later.
    if (!session?.webhook_url && !merchant.webhook_url) return;
    const now = new Date();
    await knex('payments.webhook_deliveries')
      .insert({
        id: newId('delivery'),
        event_id: event.id,
        event_kind: event.kind,
        merchant_id: merchantId,
        aggregate_id: event.aggregateId,
        payload: serializeEnvelope({ id: event.id, event: event.kind, created_at: event.createdAt, data: event.data }),
        status: 'PENDING',
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })
      // At least once: the bus may hand over an event twice; it is still one delivery.
      .onConflict(['event_id', 'merchant_id'])
      .ignore();
    worker.wake();
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
