import type { Knex } from '@mikro-orm/knex';
import { heartbeatOf } from '@gateway/db';
import { GatewayError, type Logger } from '@gateway/kernel';
import type { DeliveryTarget, TargetLookup } from './delivery-target';
import { holdLease } from '../lease/lease';
import { RECORD_RIDES_WITHIN_MS, RidingRecords } from './delivery-records';
import {
  deliveries,
  DeliveryRepository,
  type AttemptRecord,
  type ClaimedDelivery,
  type RecordOutcome,
} from './delivery.repository';
import { nextAttemptAt } from './retry-schedule';
import { signedHeaders } from './signature';
import { deliveryTargetProblem, type DeliverySettings } from './webhook-target';
import type { AttemptOutcome, WebhookSender } from './webhook-sender';

export interface DeliveryWorkerOptions {
  knex: Knex;
  sender: WebhookSender;
  /** The audience's current URL and secret (merchant or TPP), read for every attempt. */
  lookupTarget: TargetLookup;
  /** The mode (https only in production) and the egress policy every target is checked against. */
  targets: DeliverySettings;
  retryScheduleSeconds: readonly number[];
  /**
   * How long a claim lasts without a renewal (the engine's lease, 3 s): renewed every third of
   * this while the attempt runs (up to its 10 s deadline), so a dead worker's attempt is taken
   * over by another within about this plus pollIntervalMs.
   */
  leaseMs: number;
  logger: Logger;
  /**
   * How often the worker asks whether a delivery is due (a retry whose time came, a claim that
   * lapsed) when nothing woke it: a column of the process's heartbeat statement (@gateway/db), a
   * claim only when one is. A delivery another instance took in unclaimed (no room there) is
   * claimed here once that check sees it due; this instance's own intakes wake it at once.
   */
  pollIntervalMs?: number;
  /** Attempts in flight in this process, all audiences together. */
  maxInFlight?: number;
  /** Attempts in flight for one audience (merchant or TPP): a slow receiver occupies at most this many. */
  maxInFlightPerAudience?: number;
}

export interface DeliveryWorker {
  wake(): void;
  /**
   * Whether an attempt for this audience may start now (global and per-audience caps), counting
   * `granted` more (those an intake statement is about to take: in all, and for this audience).
   */
  hasRoomFor(audienceId: string, granted?: { total: number; audience: number }): boolean;
  /** The lease of a delivery claimed at insertion (renewed once its attempt runs). */
  newLease(): Date;
  /**
   * The lease tokens of this worker's attempts of an aggregate's deliveries, running or waiting in
   * their lane: the intake takes what comes behind them (delivery.repository.ts, HELD_HERE).
   */
  heldFor(aggregateId: string): string[];
  /**
   * Starts the attempt of a delivery claimed at insertion, with the target read moments ago; or,
   * while an attempt of its endpoint and aggregate runs here, once that one is delivered
   * (`taken`: what heldFor answered before the intake, and the lease it took).
   */
  launch(delivery: ClaimedDelivery, target: DeliveryTarget, taken?: TakenBehind): void;
  /** Delivered attempts whose records wait to ride on the next intake (the dispatcher's). */
  records: RidingRecords;
  /** An intake left a delivery of this aggregate waiting: the record of its attempt in flight here is written at once. */
  waitingBehind(aggregateId: string): void;
  stop(): Promise<void>;
}

const CANDIDATES = 500;
/**
 * A claim by the worker's own clock, whatever the heartbeat said: the safety net (a heartbeat
 * statement that failed, held deliveries of an owner resumed on another instance, released by a claim).
 */
const FALLBACK_CLAIM_MS = 5_000;
/** Outcomes of finished attempts kept for intakes under way (by lease token): enough for the statements in flight at once. */
const OUTCOMES_KEPT = 1_000;

/** How the intake took a delivery: behind which attempts of this worker (heldFor), until when. */
export interface TakenBehind {
  held: readonly string[];
  leaseUntil: Date;
}

/** A delivery taken behind an attempt of its lane, to be sent once that one is delivered. */
interface Waiting {
  delivery: ClaimedDelivery;
  target: DeliveryTarget;
  /** Its claim's end as taken: sent only with most of its lease left. */
  leaseUntil: number;
}

/**
 * A session's deliveries to one endpoint in this worker (an endpoint and an aggregate): the
 * attempts running, and those taken behind them, sent in order one by one as each before is
 * delivered. A retry ahead holds them back: they are dropped, their claims lapse, and they are
 * claimed in order after it (IN_ORDER).
 */
interface Lane {
  running: Set<string>;
  waiting: Waiting[];
  /** An attempt of it ended without letting the next go: nothing waiting is sent. */
  held: boolean;
}

const NOTHING_RELEASED = { released: false, letsGo: false };

const isSuccess = (outcome: AttemptOutcome) =>
  outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;

/**
 * Sends due webhook deliveries. Each attempt is claimed in the database with a short lease and a
 * fencing token (several payments instances share the work), renewed while the attempt runs, made
 * outside any transaction, and recorded with its outcome only while the token is still the row's:
 * a dead worker's claim lapses within seconds and is taken over, and a worker that was taken over
 * never records. Attempts run concurrently, capped per audience, so a receiver that answers slowly
 * holds up nobody else.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { knex, sender, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const fallbackMs = Math.max(pollIntervalMs, FALLBACK_CLAIM_MS);
  const maxInFlight = options.maxInFlight ?? 200;
  const perAudience = options.maxInFlightPerAudience ?? 10;
  const { leaseMs } = options;

  const inFlight = new Set<Promise<void>>();
  /** By aggregate, then endpoint. */
  const lanes = new Map<string, Map<string, Lane>>();
  /** Whether a finished attempt let its lane go on (delivered, or failed for good), by lease token, with its endpoint. */
  const outcomes = new Map<string, { endpointId: string; letsGo: boolean }>();
  const audienceLoad = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let again = false;
  /**
   * The last claim left due deliveries behind (for want of room, here or for their audience):
   * a freed slot looks again at once. Otherwise a finished attempt looks again only when it
   * releases a later event of its aggregate; new deliveries wake the worker at intake, and the
   * poll is the safety net (a delivery inserted by another instance, a retry that came due).
   */
  let heldBack = false;
  let stopped = false;
  /** Aggregates with a delivery an intake could not take (one before it in flight): bounded, a hint only. */
  const waitedOn = new Set<string>();
  // Well within the claim's lease, which a record must still hold when it is written.
  const records = new RidingRecords(
    (taken) => deliveries.recordAttempts(knex, taken),
    Math.min(RECORD_RIDES_WITHIN_MS, Math.floor(leaseMs / 6)),
  );

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
    timer.unref();
  };

  /** Due deliveries this process may take now, within the global and per-audience caps. */
  const claim = async (): Promise<ClaimedDelivery[]> => {
    const room = maxInFlight - inFlight.size;
    if (room <= 0) {
      heldBack = true;
      return [];
    }
    const { claimed, candidates, held, released } = await deliveries.claimDue(knex, {
      limit: room,
      candidates: CANDIDATES,
      perAudience,
      load: audienceLoad,
      leaseUntil: new Date(Date.now() + leaseMs),
    });
    heldBack = candidates > claimed.length;
    if (held > 0) logger.info({ held }, 'webhook deliveries held: their owner is suspended');
    if (released > 0) {
      logger.info({ released }, 'held webhook deliveries released: their owner was resumed');
      // Due now, claimable by the next statement (this one could not see them PENDING): at once.
      again = true;
    }
    return claimed;
  };

  /**
   * `released`: its outcome may have released a later event of the same aggregate (now due);
   * `letsGo`: what waits behind it in its lane may be sent (it was delivered, or failed for good).
   */
  const attempt = async (
    delivery: ClaimedDelivery,
    known?: DeliveryTarget,
  ): Promise<{ released: boolean; letsGo: boolean }> => {
    const number = delivery.attempts + 1;
    const startedAt = new Date();
    let url: string | null = null;
    let closed: string | undefined;
    let outcome: AttemptOutcome;
    // Renewed while the target is read and the receiver answers (up to the attempt's deadline).
    const lease = holdLease({
      leaseMs,
      idle: () => stopped,
      renew: (until) => deliveries.renewLease(knex, delivery.id, delivery.lease_token, until),
      onLost: () =>
        logger.warn(
          { delivery: delivery.id, event: delivery.event_id },
          'webhook attempt taken over by another worker (or retried by hand): its outcome will not be recorded',
        ),
      onError: (error) =>
        logger.warn({ err: error, delivery: delivery.id }, 'webhook claim not renewed (database); the attempt goes on'),
    });
    try {
      const found = known ?? (await options.lookupTarget(delivery)) ?? { url: null, secret: null };
      url = found.url;
      closed = found.closed;
      const problem = found.closed ?? (!url ? 'no webhook URL is set' : deliveryTargetProblem(url, options.targets));
      outcome = problem
        ? { error: problem, durationMs: 0 }
        : await sender.post(
            url!,
            delivery.payload,
            signedHeaders(delivery.payload, delivery.event_id, found.secret!, startedAt),
          );
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
    } finally {
      await lease.release();
    }
    if (stopped) return NOTHING_RELEASED; // shutting down: the lease lapses and another worker tries again

    const delivered = isSuccess(outcome);
    // An endpoint disabled or deleted since the event: no retries (a replay can send it again).
    const next = delivered || closed ? null : nextAttemptAt(number, options.retryScheduleSeconds, new Date());
    const status = delivered ? 'DELIVERED' : next ? 'PENDING' : 'FAILED';
    const record: AttemptRecord = {
      number,
      status,
      url,
      statusCode: outcome.statusCode ?? null,
      error: outcome.error ?? null,
      startedAt,
      durationMs: outcome.durationMs,
      nextAttemptAt: next,
      deliveredAt: delivered ? new Date() : null,
    };
    const log = {
      delivery: delivery.id,
      event: delivery.event_id,
      attempt: number,
      status,
      statusCode: outcome.statusCode,
      error: outcome.error,
    };
    const logRecord = ({ recorded }: RecordOutcome) => {
      if (recorded) logger.info(log, 'webhook attempt');
      else logger.warn(log, 'webhook attempt not recorded: its claim was taken over or dropped meanwhile');
    };
    if (delivered) {
      // Rides on the next intake (or a statement of its own soon): the slot is free meanwhile, and
      // whoever waits behind it is woken once it is written.
      void records.record(delivery, record, waitedOn.delete(delivery.aggregate_id)).then(
        (written) => {
          logRecord(written);
          // A later delivery still running or waiting in its lane here is this worker's to send:
          // its own record wakes a claim if anything stays behind it (a claim now would find
          // nothing due, one statement for nothing, on a machine slow enough that the record
          // rode before the next attempt ended).
          const lane = laneOf(delivery);
          const laterHere = lane !== undefined && (lane.running.size > 0 || lane.waiting.length > 0);
          if (written.recorded && written.laterPending && !laterHere) worker.wake();
        },
        (error: unknown) =>
          logger.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'),
      );
      // Its record rides later, under the claim this attempt still holds: what waits behind it goes now.
      return { released: false, letsGo: true };
    }
    // Recorded only if this worker still holds the claim (fencing: a takeover or a manual retry replaced its token).
    const written = await deliveries.recordAttempt(knex, delivery, record);
    logRecord(written);
    // A retry still holds its aggregate's later events; a failed one lets the next go.
    const letsGo = written.recorded && status !== 'PENDING';
    return { released: letsGo && written.laterPending, letsGo };
  };

  const laneOf = (delivery: ClaimedDelivery): Lane | undefined =>
    lanes.get(delivery.aggregate_id)?.get(delivery.endpoint_id);

  const keepOutcome = (delivery: ClaimedDelivery, letsGo: boolean) => {
    if (outcomes.size >= OUTCOMES_KEPT) outcomes.delete(outcomes.keys().next().value!);
    outcomes.set(delivery.lease_token, { endpointId: delivery.endpoint_id, letsGo });
  };

  /** An attempt of `delivery`'s lane ended: the next one waiting goes if it may, else they all wait for a claim. */
  const laneEnded = (delivery: ClaimedDelivery, letsGo: boolean) => {
    keepOutcome(delivery, letsGo);
    const lane = laneOf(delivery);
    if (!lane) return;
    lane.running.delete(delivery.lease_token);
    if (!letsGo) lane.held = true;
    if (lane.running.size > 0) return;
    const next = lane.held || stopped ? undefined : lane.waiting.shift();
    // With less than half its lease left it is not sent: its claim may lapse before the attempt renews it.
    if (next && next.leaseUntil - Date.now() > leaseMs / 2) {
      start(next.delivery, next.target);
      return;
    }
    const byEndpoint = lanes.get(delivery.aggregate_id)!;
    byEndpoint.delete(delivery.endpoint_id);
    if (byEndpoint.size === 0) lanes.delete(delivery.aggregate_id);
  };

  /** Runs the attempt in its lane (made when there is none). */
  const start = (delivery: ClaimedDelivery, known?: DeliveryTarget) => {
    let byEndpoint = lanes.get(delivery.aggregate_id);
    if (!byEndpoint) lanes.set(delivery.aggregate_id, (byEndpoint = new Map()));
    let lane = byEndpoint.get(delivery.endpoint_id);
    if (!lane) byEndpoint.set(delivery.endpoint_id, (lane = { running: new Set(), waiting: [], held: false }));
    lane.running.add(delivery.lease_token);
    audienceLoad.set(delivery.audience_id, (audienceLoad.get(delivery.audience_id) ?? 0) + 1);
    const running: Promise<void> = attempt(delivery, known)
      .catch((error) => {
        logger.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded');
        return NOTHING_RELEASED;
      })
      .then(({ released, letsGo }) => {
        laneEnded(delivery, letsGo);
        inFlight.delete(running);
        const left = (audienceLoad.get(delivery.audience_id) ?? 1) - 1;
        if (left > 0) audienceLoad.set(delivery.audience_id, left);
        else audienceLoad.delete(delivery.audience_id);
        // A slot freed: look again at once if the last claim left some behind, or this attempt released a later event.
        if (heldBack || released) worker.wake();
      });
    inFlight.add(running);
  };

  /**
   * A delivery the intake took: behind the attempts of its lane running here, or now. With its
   * lane idle, an attempt it was taken behind (`held`) may have ended meanwhile: it goes only if
   * that one let it (else its claim lapses and a claim takes it in order after the retry).
   */
  const launchTaken = (delivery: ClaimedDelivery, target: DeliveryTarget, { held, leaseUntil }: TakenBehind) => {
    const lane = laneOf(delivery);
    if (lane) {
      if (!lane.held) lane.waiting.push({ delivery, target, leaseUntil: leaseUntil.getTime() });
      return;
    }
    const heldBackBy = held.some((token) => {
      const outcome = outcomes.get(token);
      return outcome !== undefined && outcome.endpointId === delivery.endpoint_id && !outcome.letsGo;
    });
    if (!heldBackBy) start(delivery, target);
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    again = false;
    claiming = (async () => {
      try {
        // Not at once again after a batch: one claim takes every due delivery there is room for,
        // and what it leaves is released by a freed slot or a finished attempt (see heldBack).
        const claimed = await claim();
        for (const delivery of claimed) start(delivery);
      } catch (error) {
        if (!stopped) logger.error({ err: error }, 'webhook deliveries could not be claimed');
      }
    })();
    await claiming;
    claiming = undefined;
    schedule(again ? 0 : fallbackMs);
  };

  const worker: DeliveryWorker = {
    hasRoomFor: (audienceId, granted = { total: 0, audience: 0 }) =>
      !stopped &&
      inFlight.size + granted.total < maxInFlight &&
      (audienceLoad.get(audienceId) ?? 0) + granted.audience < perAudience,
    newLease: () => new Date(Date.now() + leaseMs),
    heldFor(aggregateId) {
      const tokens: string[] = [];
      for (const lane of lanes.get(aggregateId)?.values() ?? []) {
        tokens.push(...lane.running);
        for (const { delivery } of lane.waiting) tokens.push(delivery.lease_token);
      }
      return tokens;
    },
    launch: (delivery, target, taken) => (taken ? launchTaken(delivery, target, taken) : start(delivery, target)),
    records,
    waitingBehind(aggregateId) {
      if (waitedOn.size >= 1_000) waitedOn.clear();
      waitedOn.add(aggregateId);
    },
    wake() {
      if (stopped) return;
      if (claiming) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      leaveHeartbeat();
      await claiming;
      // Delivered attempts waiting for a ride are written now (else they would be sent again after their claims lapse).
      await records.flush();
      // Attempts in flight are abandoned unrecorded (their leases lapse); their HTTP calls end with the sender.
    },
  };
  // Whether anything is due rides on the process's heartbeat (one statement for all its jobs); the
  // claim, a statement of many parts, runs only then (DeliveryRepository.ANY_DUE).
  const leaveHeartbeat = heartbeatOf(knex).join({
    everyMs: pollIntervalMs,
    sql: (p) =>
      claiming || stopped
        ? undefined
        : {
            ctes: [],
            cteBindings: [],
            columns: [`${DeliveryRepository.ANY_DUE} as ${p}due`],
            columnBindings: [],
          },
    done: (columns) => {
      if (columns?.due) worker.wake();
    },
  });
  schedule(0);
  return worker;
}
