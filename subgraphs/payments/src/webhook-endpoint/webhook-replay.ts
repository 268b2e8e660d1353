import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, invalid } from '@gateway/kernel';
import { deliveries, replayWindowEvents, type ReplayWindow } from '../webhook/delivery.repository';

/*
 * Replay within bounds (issue 46): a replay once re-queued every event of 30 days to any URL for
 * one write point. Now a window is at most MAX_REPLAY_DAYS (webhook-endpoint.rules.ts) and MAX_REPLAY_EVENTS, each event sent
 * costs a point of its owner's replay budget, what is delivered or on its way is not sent again
 * (but to a new endpoint that asks for everything), and one replay of an endpoint runs at a time.
 */

/** The most events one replay sends; a window holding more is refused (narrow it). */
export const MAX_REPLAY_EVENTS = 1_000;
/** An endpoint is new for this long after it was added: only then may a replay resend what it got. */
export const NEW_ENDPOINT_HOURS = 24;
/**
 * The owner's replay budget, one point per event sent: a bucket of MAX_REPLAY_EVENTS points (one
 * full replay) refilled at the `write` class's rate (the edge's 300 a minute).
 */
export const REPLAY_EVENTS_PER_MINUTE = 300;
/** A replay runs while a delivery it queued waits for its attempt; never longer than this (a stuck one frees the endpoint). */
export const REPLAY_RUNS_AT_MOST_MINUTES = 60;

/** Why a replay sent nothing. */
export const REPLAY_REASONS = ['ENDPOINT_DISABLED', 'NO_EVENTS', 'NOTHING_FAILED', 'ALREADY_SENT'] as const;
export type ReplayReason = (typeof REPLAY_REASONS)[number];

/** What a replay did with the window's events the endpoint takes. */
export interface ReplayOutcome {
  replayed: number;
  /** The window's events the endpoint takes (its world and filter). */
  events: number;
  /** Delivered to it already, not sent again (the endpoint is not new, or only failed ones were asked for). */
  skippedDelivered: number;
  /** Still on their way to it (PENDING or HELD): never queued twice. */
  skippedPending: number;
  /** Why nothing was sent; null when something was. */
  reason: ReplayReason | null;
}

const DELIVERIES = 'payments.webhook_deliveries';
const BUDGETS = 'payments.webhook_replay_budgets';

/**
 * Runs a replay in one transaction, under the endpoint's advisory lock (two replays of it at once:
 * the second waits, then finds the first under way): refused while one is under way (409), counted,
 * refused beyond MAX_REPLAY_EVENTS (400 on `from`), queued, and charged to the owner's budget
 * (429 and nothing queued when it holds too few points). `onlyFailed`: FAILED deliveries only;
 * otherwise also events the endpoint never had, and DELIVERED ones when it is new.
 */
export async function replayWindow(
  em: EntityManager,
  window: ReplayWindow,
  { onlyFailed, newEndpoint }: { onlyFailed: boolean; newEndpoint: boolean },
): Promise<ReplayOutcome> {
  const endpointId = window.endpoint.id;
  return em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`webhook_replay:${endpointId}`]);
    const [running] = await tx.execute<Array<{ waiting: number }>>(
      `select count(*)::integer as waiting from ${DELIVERIES}
       where endpoint_id = ? and replayed_at > now() - interval '${REPLAY_RUNS_AT_MOST_MINUTES} minutes'`,
      [endpointId],
    );
    if (running!.waiting > 0)
      throw new GatewayError(
        'WEBHOOK_REPLAY_IN_PROGRESS',
        `a replay of ${endpointId} is under way: ${running!.waiting} of its events still wait for their attempt; replay again once they are sent`,
      );
    const counts = await countWindow(tx, window);
    const take = { missing: !onlyFailed, delivered: !onlyFailed && newEndpoint };
    const toSend = counts.failed + (take.missing ? counts.missing : 0) + (take.delivered ? counts.delivered : 0);
    const outcome = {
      events: counts.events,
      skippedDelivered: take.delivered ? 0 : counts.delivered,
      skippedPending: counts.pending,
    };
    if (toSend === 0) {
      const reason: ReplayReason = counts.events === 0 ? 'NO_EVENTS' : onlyFailed ? 'NOTHING_FAILED' : 'ALREADY_SENT';
      return { replayed: 0, ...outcome, reason };
    }
    if (toSend > MAX_REPLAY_EVENTS)
      throw invalid(
        'from',
        `the window holds ${toSend} events to send again, more than ${MAX_REPLAY_EVENTS} per replay: choose a narrower window (a later from or an earlier to)`,
      );
    const replayed = await deliveries.requeue(tx, window, take);
    await charge(tx, window.endpoint.audienceId, replayed);
    return { replayed, ...outcome, reason: replayed > 0 ? null : 'ALREADY_SENT' };
  });
}

/** The window's events the endpoint takes, by what became of their delivery to it. */
async function countWindow(
  em: EntityManager,
  window: ReplayWindow,
): Promise<{ events: number; missing: number; failed: number; delivered: number; pending: number }> {
  const events = replayWindowEvents(window);
  const [counts] = await em.execute(
    `with v as (${events.sql})
     select count(*)::integer as events, count(*) filter (where d.id is null)::integer as missing,
       count(*) filter (where d.status = 'FAILED')::integer as failed,
       count(*) filter (where d.status = 'DELIVERED')::integer as delivered,
       count(*) filter (where d.status in ('PENDING', 'HELD'))::integer as pending
     from v left join ${DELIVERIES} d on d.event_id = v.id and d.endpoint_id = ?`,
    [...events.bindings, window.endpoint.id],
  );
  return counts as { events: number; missing: number; failed: number; delivered: number; pending: number };
}

/**
 * Takes `points` from the owner's replay budget (the one writer of payments.webhook_replay_budgets):
 * a token bucket of MAX_REPLAY_EVENTS refilled at REPLAY_EVENTS_PER_MINUTE, one conditional upsert
 * (the row lock orders an owner's replays of several endpoints). Too few points: RATE_LIMITED with
 * the seconds until there are enough, and the caller's transaction rolls back what it queued.
 */
async function charge(em: EntityManager, audienceId: string, points: number): Promise<void> {
  const perSecond = REPLAY_EVENTS_PER_MINUTE / 60;
  const refilled = `least(${MAX_REPLAY_EVENTS}, b.tokens + extract(epoch from (now() - b.updated_at)) * ${perSecond})`;
  const taken = await em.execute(
    `insert into ${BUDGETS} as b (audience_id, tokens, updated_at) values (?, ?, now())
     on conflict (audience_id) do update set tokens = ${refilled} - ?, updated_at = now()
     where ${refilled} >= ?
     returning tokens`,
    [audienceId, MAX_REPLAY_EVENTS - points, points, points],
  );
  if (taken.length > 0) return;
  const [left] = await em.execute<Array<{ tokens: number }>>(
    `select ${refilled} as tokens from ${BUDGETS} b where b.audience_id = ?`,
    [audienceId],
  );
  const missing = points - Math.floor(left?.tokens ?? 0);
  const seconds = Math.max(1, Math.ceil(missing / perSecond));
  throw new GatewayError(
    'RATE_LIMITED',
    `this replay would send ${points} events, one point each of the replay budget (${MAX_REPLAY_EVENTS}, refilled at ${REPLAY_EVENTS_PER_MINUTE} a minute); ${Math.floor(left?.tokens ?? 0)} left: retry in ${seconds} s or narrow the window`,
    undefined,
    seconds,
  );
}
