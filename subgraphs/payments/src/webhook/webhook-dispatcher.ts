import type { Knex } from '@mikro-orm/knex';
import type { EventBus, PlatformEvent, Subscription } from '@gateway/events';
import type { ServiceClient } from '@gateway/federation';
import { newId, type Logger } from '@gateway/kernel';
import { createTargetLookup, openEndpointTarget, openMerchantTarget, type DeliveryTarget } from './delivery-target';
import { startDeliveryWorker, type DeliveryWorker } from './delivery-worker';
import { deliveries, type IntakeResult, type NewEvent } from './delivery.repository';
import { MAX_ENDPOINTS, primaryEndpointId } from './event-kinds';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from './retry-schedule';
import { serializeEnvelope } from './signature';
import { audienceOf, type WebhookAudience } from './webhook-audience';
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

  const intakeEvent = async (event: PlatformEvent): Promise<void> => {
    const audienceId = event.audience;
    if (!audienceId) return; // an event for nobody in particular: no webhook
    const sequence = event.sequence ?? null;
    // Every event of a world says which (its object's livemode); none was ever written without it since test mode.
    const livemode = event.data.livemode !== false;
    const row: NewEvent = {
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
      deliveryIds: Array.from({ length: MAX_ENDPOINTS + 1 }, () => newId('delivery')),
    };
    // With room for them, this worker takes its deliveries in the same statement and sends them at
    // once, those next in their endpoint's order. The lease runs from the statement (after any router call).
    const leaseUntil = () => (worker.hasRoomFor(audienceId) ? worker.newLease() : null);
    // Taken behind this worker's attempts of the same session still under way (sent in order after them).
    const held = worker.heldFor(event.aggregateId);
    let lease: Date | null = null;
    let primary: DeliveryTarget | null = null;
    let result: IntakeResult | undefined;
    // The worker's delivered attempts not recorded yet ride on this statement (put back if it fails).
    const intake = async (audience: WebhookAudience, withTarget: NewEvent, until: Date | null) => {
      const riding = worker.records.take();
      lease = until;
      try {
        const { intake: taken, recorded } = await deliveries.intakeRecording(
          knex,
          audience,
          withTarget,
          until,
          riding,
          held,
        );
        worker.records.rode(riding, recorded);
        return taken;
      } catch (error) {
        worker.records.putBack(riding);
        throw error;
      }
    };
    const audience = audienceOf(audienceId);
    if (audience === 'operator' || audience === 'bank') {
      // Endpoints only (no webhook_url, nothing to ask anyone): the event is logged and goes to
      // each of the owner's endpoints of its world that takes it. A second copy is a no-op as for anyone.
      result = await intake(audience, row, leaseUntil());
    } else if (audience === 'tpp') {
      // A TPP's primary target is asked of open-banking; if the router cannot answer, this throws and
      // the bus hands the event over again later (at least once).
      primary = await lookupTarget({
        audience_id: audienceId,
        endpoint_id: primaryEndpointId(audienceId),
        aggregate_id: event.aggregateId,
      });
      if (!primary) return; // an unknown TPP: nothing to log or deliver
      result = await intake('tpp', { ...row, primaryUrlSet: primary.url !== null }, leaseUntil());
    } else {
      // One statement reads the merchant's primary target, logs the event and inserts its deliveries.
      result = await intake('merchant', row, leaseUntil());
      if (result?.target) primary = openMerchantTarget(result.target, options.platformSecret);
    }
    // Nothing inserted: an unknown audience, no endpoint, or a second copy of an event (not sent again).
    let waiting = false;
    for (const delivery of result?.deliveries ?? []) {
      // Its owner is suspended: it waits HELD for the claim that releases it, nothing to wake for.
      if (delivery.held) continue;
      const target =
        delivery.endpoint_url !== null && delivery.endpoint_sealed !== null
          ? openEndpointTarget(delivery.endpoint_url, delivery.endpoint_sealed, options.platformSecret)
          : primary;
      const { endpoint_url: _u, endpoint_sealed: _s, held: _h, lease_token, ...claimed } = delivery;
      if (lease_token && target && lease)
        worker.launch({ ...claimed, lease_token }, target, { held, leaseUntil: lease });
      else {
        waiting = true;
        // Most likely behind this worker's attempt at the event before: its record goes at once, not after a wait.
        worker.waitingBehind(delivery.aggregate_id);
      }
    }
    if (waiting) worker.wake();
  };

  // A session's events reach this process one after another (the relay publishes them together
  // when they were written together: processing and completed), and a bus hands them over at once.
  // Taken in turn, the later one sees the earlier one logged and its attempt running here, and is
  // taken behind it rather than left for a claim once it is recorded (three statements more).
  const intakesUnderWay = new Map<string, Promise<unknown>>();
  const intakeInTurn = (event: PlatformEvent): Promise<void> => {
    const before = intakesUnderWay.get(event.aggregateId);
    const intake = before ? before.then(() => intakeEvent(event)) : intakeEvent(event);
    const done = intake.catch(() => undefined);
    intakesUnderWay.set(event.aggregateId, done);
    void done.then(() => {
      if (intakesUnderWay.get(event.aggregateId) === done) intakesUnderWay.delete(event.aggregateId);
    });
    return intake;
  };

  const subscription: Subscription = await options.bus.consume(
    WEBHOOK_CONSUMER_GROUP,
    WEBHOOK_EVENT_PATTERNS,
    intakeInTurn,
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
