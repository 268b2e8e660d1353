import type { Knex } from '@mikro-orm/knex';
import type { EventBus, Subscription } from '@gateway/events';
import type { ServiceClient } from '@gateway/federation';
import type { Logger } from '@gateway/kernel';
import { createTargetLookup } from './delivery-target';
import { startDeliveryWorker, type DeliveryWorker } from './delivery-worker';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from './retry-schedule';
import { WebhookIntake } from './webhook-intake';
import { createWebhookSender, DEFAULT_ATTEMPT_TIMEOUT_MS } from './webhook-sender';

/** The bus consumer group: every payments instance competes for the same queue. */
export const WEBHOOK_CONSUMER_GROUP = 'webhooks';
/**
 * Every event kind that becomes a webhook: payment, refund and mandate events (refund.completed,
 * mandate.activated, mandate.charge.completed, …) for merchants; Open Banking events (consent.*,
 * payment_order.*) for TPPs; liquidity events (net debit caps) for the operator and banks. One
 * queue bound to all of them, one code path, whatever the audience.
 */
export const WEBHOOK_EVENT_PATTERNS = [
  'payment.*',
  'refund.*',
  'consent.*',
  'payment_order.*',
  'vrp_consent.*',
  'vrp_payment.*',
  'mandate.#',
  'liquidity.*',
] as const;

export interface WebhookDispatcherOptions {
  knex: Knex;
  bus: EventBus;
  /** Opens the sealed webhook secrets (merchants' and TPPs'). */
  platformSecret: string;
  /** Asks open-banking, through the router, for a TPP's webhook target. */
  call: ServiceClient;
  production: boolean;
  /** PRIVATE_TARGETS: loopback, private and link-local targets are called too. */
  privateTargets: boolean;
  logger: Logger;
  retryScheduleSeconds?: readonly number[];
  attemptTimeoutMs?: number;
  /** How long a claim on an attempt lasts without a renewal: the engine's lease (leaseMs). */
  leaseMs: number;
  pollIntervalMs?: number;
}

export interface WebhookDispatcher {
  /** Look for due deliveries now (after a manual retry). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Turns events into webhook deliveries and sends them: payment events to the merchant's endpoints,
 * Open Banking events (audience tpp_…) to the TPP's, liquidity events to the operator's
 * (operator:platform) or a bank's (bank:<handle>), with the same envelope, signatures, retries
 * and delivery log. Intake is quick (one statement: the event logged and one row per endpoint that
 * takes it, a duplicate event a no-op) so
 * the bus is acknowledged at once; the sending is the worker's, at its own pace, retried on the
 * schedule.
 */
export async function startWebhookDispatcher(options: WebhookDispatcherOptions): Promise<WebhookDispatcher> {
  const { knex, logger } = options;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const targets = { production: options.production, privateTargets: options.privateTargets };
  const sender = createWebhookSender({ policy: targets, timeoutMs: attemptTimeoutMs });
  const lookupTarget = createTargetLookup({ knex, call: options.call, platformSecret: options.platformSecret });
  const worker: DeliveryWorker = startDeliveryWorker({
    knex,
    sender,
    lookupTarget,
    logger,
    targets,
    retryScheduleSeconds: options.retryScheduleSeconds ?? DEFAULT_RETRY_SCHEDULE_SECONDS,
    leaseMs: options.leaseMs,
    pollIntervalMs: options.pollIntervalMs,
  });

  const intake = new WebhookIntake(knex, worker, lookupTarget, options.platformSecret);
  const subscription: Subscription = await options.bus.consume(
    WEBHOOK_CONSUMER_GROUP,
    WEBHOOK_EVENT_PATTERNS,
    intake.take,
  );
  return {
    wake: () => worker.wake(),
    async stop() {
      await subscription.close();
      await worker.stop();
      await sender.close();
    },
  };
}
