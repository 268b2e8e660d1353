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

/** The most events of one aggregate one intake statement logs (they come a few at a time: a session's moves). */
const MAX_EVENTS_AN_INTAKE = 16;

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

  /** An event's log row and its deliveries' ids, as the intake writes them. */
  const newEvent = (event: PlatformEvent, audienceId: string): NewEvent => {
    const sequence = event.sequence ?? null;
    // Every event of a world says which (its object's livemode); none was ever written without it since test mode.
    const livemode = event.data.livemode !== false;
    return {
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
  };

  /** Consecutive events of one aggregate and audience (intakeInTurn), taken in one statement. */
  const intakeEvents = async (events: readonly PlatformEvent[]): Promise<void> => {
    const first = events[0]!;
    const audienceId = first.audience;
    if (!audienceId) return; // an event for nobody in particular: no webhook
    const rows = events.map((event) => newEvent(event, audienceId));
    // With room for them, this worker takes its deliveries in the same statement and sends them at
    // once, those next in their endpoint's order. The lease runs from the statement (after any router call).
    const leaseUntil = () => (worker.hasRoomFor(audienceId) ? worker.newLease() : null);
    // Taken behind this worker's attempts of the same session still under way (sent in order after them).
    const held = worker.heldFor(first.aggregateId);
    let lease: Date | null = null;
    let primary: DeliveryTarget | null = null;
    let result: IntakeResult | undefined;
    // The worker's delivered attempts not recorded yet ride on this statement (put back if it fails).
    const intake = async (audience: WebhookAudience, withTarget: NewEvent[], until: Date | null) => {
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
      result = await intake(audience, rows, leaseUntil());
    } else if (audience === 'tpp') {
      // A TPP's primary target is asked of open-banking; if the router cannot answer, this throws and
      // the bus hands the events over again later (at least once).
      primary = await lookupTarget({
        audience_id: audienceId,
        endpoint_id: primaryEndpointId(audienceId),
        aggregate_id: first.aggregateId,
      });
      if (!primary) return; // an unknown TPP: nothing to log or deliver
      const primaryUrlSet = primary.url !== null;
      result = await intake(
        'tpp',
        rows.map((row) => ({ ...row, primaryUrlSet })),
        leaseUntil(),
      );
    } else {
      // One statement reads the merchant's primary target, logs the events and inserts their deliveries.
      result = await intake('merchant', rows, leaseUntil());
      if (result?.target) primary = openMerchantTarget(result.target, options.platformSecret);
    }
    // Nothing inserted: an unknown audience, no endpoint, or a second copy of an event (not sent again).
    // In the events' order: an endpoint's later delivery waits in its lane behind the earlier one.
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
  // Events that come while an intake of their aggregate is under way, or in the same turn of the
  // event loop as the first, wait for their turn together and go in one statement when they are
  // consecutive (issue 53: a same-bank payment's processing and completed, one intake, not two).
  const intakesUnderWay = new Map<string, Promise<unknown>>();
  const forming = new Map<string, { events: PlatformEvent[]; done: Promise<void> }>();
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const follows = (events: readonly PlatformEvent[], event: PlatformEvent) => {
    const last = events[events.length - 1]!;
    return (
      last.audience === event.audience &&
      last.sequence !== undefined &&
      event.sequence === last.sequence + 1 &&
      event.aggregateType === last.aggregateType
    );
  };
  const intakeInTurn = (event: PlatformEvent): Promise<void> => {
    const key = event.aggregateId;
    const open = forming.get(key);
    if (open && open.events.length < MAX_EVENTS_AN_INTAKE && follows(open.events, event)) {
      open.events.push(event);
      return open.done;
    }
    const before = intakesUnderWay.get(key) ?? nextTurn();
    const batch = { events: [event], done: Promise.resolve() };
    batch.done = before.then(() => {
      // Its turn: nothing joins it any more.
      if (forming.get(key) === batch) forming.delete(key);
      return intakeEvents(batch.events);
    });
    forming.set(key, batch);
    const done = batch.done.catch(() => undefined);
    intakesUnderWay.set(key, done);
    void done.then(() => {
      if (intakesUnderWay.get(key) === done) intakesUnderWay.delete(key);
    });
    return batch.done;
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
