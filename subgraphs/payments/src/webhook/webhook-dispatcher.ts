import type { Knex } from '@mikro-orm/knex';
import type { EventBus, PlatformEvent, Subscription } from '@gateway/events';
import type { ServiceClient } from '@gateway/federation';
import { newId, type Logger } from '@gateway/kernel';
import { createTargetLookup, isTppAudience, openMerchantTarget, type DeliveryTarget } from './delivery-target';
import { startDeliveryWorker, type DeliveryWorker } from './delivery-worker';
import { deliveries, type IntakeResult, type NewDelivery } from './delivery.repository';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from './retry-schedule';
import { serializeEnvelope } from './signature';
import { createWebhookSender, DEFAULT_ATTEMPT_TIMEOUT_MS } from './webhook-sender';

/** The bus consumer group: every payments instance competes for the same queue. */
export const WEBHOOK_CONSUMER_GROUP = 'webhooks';
/**
 * Every event kind that becomes a webhook: payment, refund and mandate events (refund.completed,
 * mandate.activated, mandate.charge.completed, …) for merchants; Open Banking events (consent.*,
 * payment_order.*) for TPPs. One queue bound to all of them, one code path, whatever the audience.
 */
export const WEBHOOK_EVENT_PATTERNS = ['payment.*', 'refund.*', 'consent.*', 'payment_order.*', 'mandate.#'] as const;

export interface WebhookDispatcherOptions {
  knex: Knex;
  bus: EventBus;
  /** Opens the sealed webhook secrets (merchants' and TPPs'). */
  platformSecret: string;
  /** Asks open-banking, through the router, for a TPP's webhook target. */
  call: ServiceClient;
  production: boolean;
  /** WEBHOOK_PRIVATE_TARGETS: loopback, private and link-local targets are called too. */
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
 * Turns events into webhook deliveries and sends them: payment events to the merchant, Open
 * Banking events (audience tpp_…) to the TPP, with the same envelope, signatures, retries and
 * delivery log. Intake is quick (one row per event and audience, a duplicate event is a no-op) so
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

  const intake = async (event: PlatformEvent): Promise<void> => {
    const audienceId = event.audience;
    if (!audienceId) return; // an event for nobody in particular: no webhook
    const sequence = event.sequence ?? null;
    // Every event of a world says which (its object's livemode); none was ever written without it since test mode.
    const livemode = event.data.livemode !== false;
    const row: NewDelivery = {
      id: newId('delivery'),
      eventId: event.id,
      eventKind: event.kind,
      audienceId,
      aggregateId: event.aggregateId,
      livemode,
      sequence,
      payload: serializeEnvelope({
        id: event.id,
        event: event.kind,
        created_at: event.createdAt,
        livemode,
        ...(sequence !== null ? { sequence } : {}),
        data: event.data,
      }),
      now: new Date(),
    };
    // With room for it, this worker takes it in the same statement and sends it at once, if it is
    // next in its aggregate's order. The lease runs from the statement (after any router call).
    const leaseUntil = () => (worker.hasRoomFor(audienceId) ? worker.newLease() : null);
    let target: DeliveryTarget | null = null;
    let result: IntakeResult | undefined;
    if (isTppAudience(audienceId)) {
      // A TPP's target is asked of open-banking; if the router cannot answer, this throws and the
      // bus hands the event over again later (at least once).
      target = await lookupTarget(audienceId, event.aggregateId);
      // An unknown TPP, or no endpoint named: nothing to deliver.
      if (!target?.url) return;
      result = await deliveries.intake(knex, 'tpp', row, leaseUntil());
    } else {
      // One statement reads the merchant's target and inserts only when it names an endpoint.
      result = await deliveries.intake(knex, 'merchant', row, leaseUntil());
      if (result?.target) target = openMerchantTarget(result.target, options.platformSecret);
    }
    // Nothing inserted: an unknown audience, no endpoint, or a second copy of an event (not sent again).
    const delivery = result?.delivery;
    if (!delivery || !target) return;
    if (delivery.lease_token) worker.launch({ ...delivery, lease_token: delivery.lease_token }, target);
    else worker.wake();
  };

  const subscription: Subscription = await options.bus.consume(WEBHOOK_CONSUMER_GROUP, WEBHOOK_EVENT_PATTERNS, intake);
  return {
    wake: () => worker.wake(),
    async stop() {
      await subscription.close();
      await worker.stop();
      await sender.close();
    },
  };
}
