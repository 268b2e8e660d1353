import type { Knex } from '@mikro-orm/knex';
import { rawQuery } from '@gateway/db';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  recordingOf,
  recordOutcomes,
  type AttemptRecord,
  type RecordedRow,
  type RecordOutcome,
} from './delivery-recording';
import type {
  ClaimedDelivery,
  EndpointTarget,
  IntakenDelivery,
  IntakeResult,
  MerchantTarget,
  NewEvent,
  TargetRead,
} from './delivery.types';
import { isPrimaryEndpointId } from './event-kinds';
import { audienceOf, type WebhookAudience } from './webhook-audience';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

export type { AttemptRecord, RecordOutcome } from './delivery-recording';

export type * from './delivery.types';

const DELIVERIES = 'payments.webhook_deliveries';

/** How long a delivery waits for the delivery of its aggregate's previous event to appear (it may be a non-webhook event, or still on the bus). */
export const PREVIOUS_EVENT_WAIT_SECONDS = 5;

const EVENTS = 'payments.webhook_events';
const ENDPOINTS = 'payments.webhook_endpoints';
/**
 * The vault's list of suspended participants (@gateway/vault suspension.ts, written in the owner's
 * transaction with its status change), read here only: a suspended merchant's or TPP's
 * deliveries are HELD, and released once it is no longer listed. A bank is listed by its handle,
 * never its audience id (bank:<handle>, webhook-audience.ts): a suspended bank's liquidity
 * events still go out.
 */
const SUSPENDED_OWNERS = 'auth.suspended_owners';
const ownerSuspended = (delivery: string) =>
  `exists (select 1 from ${SUSPENDED_OWNERS} s where s.owner_id = ${delivery}.audience_id)`;

/**
 * Whether delivery `d` is next in its aggregate's order for its endpoint (API-CONTRACT "Webhook
 * headers": in order per session, whatever the number of dispatchers): no earlier delivery of the
 * aggregate to the same endpoint is still PENDING (sent, retrying or waiting) or HELD, and the previous
 * event is logged (with its deliveries, in the same statement; one an endpoint's filter left out
 * has none), or is given up on after PREVIOUS_EVENT_WAIT_SECONDS. Only the endpoint and aggregate
 * wait: one dead endpoint holds up its own deliveries of its own sessions, nobody else's. The
 * previous event is `previousOf`'s (sequence, created_at): an intake of consecutive events asks it
 * of the first of them, the one before the others being in the same statement.
 */
const inOrder = (settledInStatement = '', previousOf = 'd') => `not exists (select 1 from ${DELIVERIES} e
    where e.endpoint_id = d.endpoint_id and e.aggregate_id = d.aggregate_id and e.status in ('PENDING', 'HELD') and e.sequence < d.sequence${settledInStatement})
  and (${previousOf}.sequence is null or ${previousOf}.sequence <= 1 or ${previousOf}.created_at < now() - interval '${PREVIOUS_EVENT_WAIT_SECONDS} seconds'
    or exists (select 1 from ${EVENTS} e where e.aggregate_id = d.aggregate_id and e.sequence = ${previousOf}.sequence - 1))`;
const IN_ORDER = inOrder();
const ATTEMPTS = 'payments.webhook_attempts';

/**
 * Attempts recorded ahead of another statement (intakeRecording), bound first as a JSON list:
 * each delivery's new state and its attempt's row, written only while the worker still holds the
 * claim (its fencing token), as recordAttempt does. `recorded`: the deliveries written. The rows
 * are found by their ids as an array (`= any`), so the plan is an index lookup whatever the
 * table's size when it was made: a prepared plan made while the table was small joined the list
 * to a scan of every delivery, and kept doing so as the table grew (issue 53).
 */
const RECORDING = `recording as (select * from jsonb_to_recordset(?::jsonb) as r(id text, token text, status text, attempts integer,
      url text, status_code integer, error text, next_attempt_at timestamptz, delivered_at timestamptz, started_at timestamptz,
      duration_ms integer)),
    recorded as (
      update ${DELIVERIES} d set status = r.status, attempts = r.attempts, url = r.url, last_status_code = r.status_code,
        last_error = r.error, next_attempt_at = r.next_attempt_at, lease_until = null, lease_token = null,
        delivered_at = r.delivered_at, replayed_at = null, updated_at = now()
      from recording r where d.id = any (array(select x.id from recording x)) and d.id = r.id and d.lease_token = r.token
      returning d.id, d.status, d.endpoint_id, d.aggregate_id),
    recorded_attempts as (
      insert into ${ATTEMPTS} (delivery_id, number, url, started_at, duration_ms, status_code, error)
      select r.id, r.attempts, r.url, r.started_at, r.duration_ms, r.status_code, r.error from recording r join recorded u on u.id = r.id
      returning delivery_id)`;
/** IN_ORDER's exception for deliveries this statement records as no longer PENDING (it cannot see its own writes). */
const SETTLED_HERE = ` and e.id not in (select u.id from recorded u where u.status <> 'PENDING')`;
/**
 * IN_ORDER's exception for deliveries in flight in the intake's own worker (their lease tokens
 * bound as a JSON list): the worker sends what it takes behind them once they are delivered,
 * and not at all if one of them is to be retried (delivery-worker.ts, lanes).
 */
const HELD_HERE = ` and (e.lease_token is null or e.lease_token not in (select jsonb_array_elements_text(?::jsonb)))`;
/** Per delivery recorded: whether another delivery of its aggregate to its endpoint is still PENDING (not one recorded here). */
const RECORDED_OUTCOMES = `(select coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'later', exists (select 1 from ${DELIVERIES} e
      where e.endpoint_id = u.endpoint_id and e.aggregate_id = u.aggregate_id and e.status = 'PENDING' and e.id <> u.id
        and e.id not in (select id from recorded)))), '[]'::jsonb) from recorded u)`;

/**
 * A merchant's target for an event of aggregate `aggregate` and merchant `merchant` (SQL
 * expressions: parameters, or a claimed row's columns): the session's own URL for the session's
 * events and its refunds' (a refund's aggregate is the refund; its session is the one the merchant
 * set the URL on), else the merchant's.
 */
const merchantTarget = (aggregate: string, merchant: string) => `select m.webhook_url as merchant_url,
    m.webhook_secret_sealed as sealed, s.webhook_url as session_url
  from payments.merchants m left join payments.payment_sessions s
    on s.id = coalesce((select r.session_id from payments.refunds r where r.id = ${aggregate}), ${aggregate}) where m.id = ${merchant}`;
/** With the aggregate bound first and second, the merchant third. */
const MERCHANT_TARGET = merchantTarget('?', '?');

/** The target columns claimDue reads beside each claimed delivery (a status or a sealed secret: found; never null when found). */
interface ClaimedTargetColumns {
  endpoint_url: string | null;
  endpoint_sealed: string | null;
  endpoint_status: string | null;
  merchant_url: string | null;
  sealed: string | null;
  session_url: string | null;
}

/**
 * A claimed row as the worker holds it, with the target the claim read: a further endpoint's row
 * or a merchant's primary target (found or not); none for a TPP's primary endpoint, which is
 * open-banking's and asked through the router for the attempt.
 */
function claimedDelivery(
  row: { candidates: number; held: number; released: number } & ClaimedDelivery & ClaimedTargetColumns,
): ClaimedDelivery {
  const {
    candidates: _c,
    held: _h,
    released: _r,
    endpoint_url,
    endpoint_sealed,
    endpoint_status,
    merchant_url,
    sealed,
    session_url,
    ...claimed
  } = row;
  let target_read: TargetRead | undefined;
  if (!isPrimaryEndpointId(row.endpoint_id)) {
    const endpoint: EndpointTarget | null =
      endpoint_status !== null
        ? { url: endpoint_url!, secret_sealed: endpoint_sealed!, status: endpoint_status }
        : null;
    target_read = { endpoint };
  } else if (audienceOf(row.audience_id) === 'merchant') {
    target_read = { merchant: sealed !== null ? { merchant_url, sealed, session_url } : null };
  }
  return target_read ? { ...claimed, target_read } : claimed;
}

/** A replay's scope: an endpoint of an owner, and the window of event creation times [from, to). */
export interface ReplayWindow {
  endpoint: { id: string; audienceId: string; livemode: boolean; enabledEvents: readonly string[] };
  from: Date;
  to: Date;
}

/** The owner's logged events of a replay's window that its endpoint takes (its world and filter): SQL and bindings. */
export function replayWindowEvents({ endpoint, from, to }: ReplayWindow): { sql: string; bindings: unknown[] } {
  const filter = JSON.stringify(endpoint.enabledEvents);
  return {
    sql: `select v.* from ${EVENTS} v where v.audience_id = ? and v.livemode = ? and v.created_at >= ? and v.created_at < ?
      and (?::jsonb @> '["*"]'::jsonb or ?::jsonb @> jsonb_build_array(v.kind))`,
    bindings: [endpoint.audienceId, endpoint.livemode, from, to, filter, filter],
  };
}

/**
 * The one writer of payments.webhook_deliveries and payments.webhook_attempts (CONVENTIONS
 * "Data": one owner per table): the dispatcher's intake, the worker's claims and records, and a
 * merchant's or TPP's manual retry all go through here. The intake and the worker use knex with SQL
 * written out, on purpose: each step is one statement (issue 15: statements per payment). The
 * intake reads the target, inserts and takes the delivery; the claim finds due deliveries, caps
 * them per audience, re-checks the lease under the row lock and answers the rows it took; an
 * attempt is recorded only if its worker still holds the claim (its fencing token). MikroORM's
 * unit of work cannot say any of these. The manual retry is an ordinary entity change.
 */
export class DeliveryRepository {
  /**
   * Whether claimDue may find anything: a due PENDING delivery nobody holds (one probe of
   * webhook_deliveries_due_index), as a column of the process's heartbeat statement. An
   * over-estimate on purpose (order, caps and suspended owners are the claim's): a due delivery
   * held back only costs a claim per tick.
   */
  static readonly ANY_DUE = `exists (select 1 from ${DELIVERIES} d where d.status = 'PENDING' and d.next_attempt_at <= now()
    and (d.lease_until is null or d.lease_until < now()))`;

  /**
   * The current target of an event for a merchant: the session's own URL, the merchant's URL and
   * sealed secret. One query. (A TPP's target is open-banking's: asked through the router.)
   */
  async merchantTargetOf(knex: Knex, merchantId: string, aggregateId: string): Promise<MerchantTarget | undefined> {
    return (await rawQuery<MerchantTarget>(knex, MERCHANT_TARGET, [aggregateId, aggregateId, merchantId])).rows[0];
  }

  /**
   * Intake in one statement: the event logged (nothing at all when it is logged already: the bus
   * may hand an event over twice) and one delivery per endpoint that takes it: the primary one
   * when its URL is set, and every ENABLED endpoint of the audience in the event's world whose
   * filter names the event kind (or `*`); the operator and banks have no primary endpoint. Each delivery is taken at once until `leaseUntil` with a
   * new fencing token when given and next in its endpoint's order (IN_ORDER, as a claim checks
   * it), else left for the worker; HELD, neither taken nor due, while the owner is suspended. For a merchant, the same statement reads the primary target
   * (session URL, merchant URL, sealed secret), and logs nothing for an unknown merchant:
   * undefined then. An event is logged even when no endpoint takes it (GET /events). Only a
   * merchant's statement differs; a TPP's, the operator's and a bank's are the same one.
   */
  async intake(
    knex: Knex,
    audience: WebhookAudience,
    row: NewEvent,
    leaseUntil: Date | null,
  ): Promise<IntakeResult | undefined> {
    return (await this.intakeRecording(knex, audience, [row], leaseUntil, [])).intake;
  }

  /**
   * `intake` of one or more consecutive events of one aggregate and audience (as the bus hands a
   * session's processing and completed over together): intakeGroups with one group.
   */
  async intakeRecording(
    knex: Knex,
    audience: WebhookAudience,
    events: readonly NewEvent[],
    leaseUntil: Date | null,
    records: ReadonlyArray<{ delivery: ClaimedDelivery; attempt: AttemptRecord }>,
    held: readonly string[] = [],
  ): Promise<{ intake: IntakeResult | undefined; recorded: Map<string, RecordOutcome> }> {
    const { intakes, recorded } = await this.intakeGroups(
      knex,
      audience,
      [{ events, take: leaseUntil !== null }],
      leaseUntil,
      records,
      held,
    );
    return { intake: intakes[0], recorded };
  }

  /**
   * `intake` of several groups of events in one statement, each group one or more consecutive
   * events of one aggregate (as the bus hands a session's processing and completed over
   * together), the groups of one audience kind (a merchant's statement differs from the others'),
   * with attempts the worker made since its last statement recorded first (issue 32: statements
   * per payment; the way the outbox relay's stamps ride on its next statement): each only if its
   * worker still holds the claim, as recordAttempt. Why groups: under load the events of many
   * sessions reach the intake in the same turn, and one statement for all of them is one round
   * trip and one commit instead of one each (issue 53).
   *
   * Each group is what an intake of its events alone would be: its merchant's target read, its
   * events logged (none when its merchant is unknown), its deliveries taken when `take` (with
   * `leaseUntil`) and its first event's deliveries are next in order. A delivery this statement
   * records as no longer PENDING does not hold the new events' deliveries back (the statement
   * cannot see its own writes, so it leaves them out of IN_ORDER by id): the next event of a
   * session is taken at once when the attempt before it was just recorded with it. Nor do
   * deliveries whose attempts run in the calling worker (`held`: their lease tokens), which sends
   * what it takes behind them in order. Of a group's several events, those after the first are in
   * order behind it (their previous event is in the statement): each endpoint's deliveries are
   * taken when the first event's would be, and the worker sends them one after the other, in the
   * events' order (its lanes). Each group's deliveries come back in that order.
   */
  async intakeGroups(
    knex: Knex,
    audience: WebhookAudience,
    groups: ReadonlyArray<{ events: readonly NewEvent[]; take: boolean }>,
    leaseUntil: Date | null,
    records: ReadonlyArray<{ delivery: ClaimedDelivery; attempt: AttemptRecord }>,
    held: readonly string[] = [],
  ): Promise<{ intakes: Array<IntakeResult | undefined>; recorded: Map<string, RecordOutcome> }> {
    const merchant = audience === 'merchant';
    const primaryOn = merchant
      ? 'exists (select 1 from target t where t.grp = i.grp and coalesce(t.session_url, t.merchant_url) is not null)'
      : 'i.primary_on';
    const { rows } = await rawQuery(
      knex,
      `with ${RECORDING},
       i as (select * from jsonb_to_recordset(?::jsonb) as i(event_id text, event_kind text, audience_id text, aggregate_id text,
           livemode boolean, sequence integer, payload text, created_at timestamptz, ids jsonb, primary_on boolean, grp integer,
           nth integer, take boolean)),
       -- The first event of each group: the one whose previous event decides whether the group is in order.
       lead_event as (select i.grp, i.sequence, i.created_at, i.aggregate_id, i.audience_id, i.take from i where i.nth = 1),
       ${merchant ? `target as (select l.grp, t.* from lead_event l cross join lateral (${merchantTarget('l.aggregate_id', 'l.audience_id')}) t),` : ''}
       event as (
         insert into ${EVENTS} (id, audience_id, kind, livemode, aggregate_id, sequence, payload, created_at)
         select i.event_id, i.audience_id, i.event_kind, i.livemode, i.aggregate_id, i.sequence, i.payload, i.created_at from i
         ${merchant ? 'where exists (select 1 from target t where t.grp = i.grp)' : ''}
         -- At least once: the bus may hand over an event twice; it is still one event, delivered once per endpoint.
         on conflict (id) do nothing
         returning id),
       endpoints as (
         select i.event_id, 'we_' || i.audience_id as endpoint_id, null::text as url, null::text as sealed, 0 as rank from i where ${primaryOn}
         union all
         select i.event_id, w.id, w.url, w.secret_sealed, 1 from ${ENDPOINTS} w join i on w.audience_id = i.audience_id and w.livemode = i.livemode
         where w.status = 'ENABLED' and (w.enabled_events @> '["*"]'::jsonb or w.enabled_events @> jsonb_build_array(i.event_kind))),
       numbered as (select x.*, row_number() over (partition by x.event_id order by x.rank, x.endpoint_id)::integer as n from endpoints x),
       -- A suspended owner's deliveries are inserted HELD: not taken, not due, released on resume (claimDue).
       hold as (select l.grp, ${ownerSuspended('l')} as held from lead_event l),
       inserted as (
         insert into ${DELIVERIES} (id, event_id, event_kind, audience_id, endpoint_id, aggregate_id, livemode, sequence, payload, status, attempts,
           next_attempt_at, lease_until, lease_token, created_at, updated_at)
         select d.id, d.event_id, d.event_kind, d.audience_id, d.endpoint_id, d.aggregate_id, d.livemode, d.sequence, d.payload,
           case when h.held then 'HELD' else 'PENDING' end, 0, case when h.held then null else d.created_at end,
           case when c.take then ?::timestamptz end, case when c.take then gen_random_uuid()::text end, d.created_at, d.created_at
         from (select coalesce(i.ids ->> (n.n - 1), 'whd_' || substr(md5(gen_random_uuid()::text), 1, 24)) as id, i.event_id, i.event_kind,
                 i.audience_id, n.endpoint_id, i.aggregate_id, i.livemode, i.sequence, i.payload, i.created_at, i.grp
               from i join numbered n on n.event_id = i.event_id join event v on v.id = i.event_id) d
         join hold h on h.grp = d.grp
         join lead_event l on l.grp = d.grp
         cross join lateral (select l.take and not h.held and ${inOrder(SETTLED_HERE + HELD_HERE, 'l')} as take) c
         on conflict (event_id, endpoint_id) do nothing
         returning id, event_id, audience_id, endpoint_id, aggregate_id, payload, attempts, lease_token, status)
       select g.grp, ${merchant ? 'exists (select 1 from target t where t.grp = g.grp)' : 'true'} as known,
         (select count(*) from event v join i on i.event_id = v.id where i.grp = g.grp)::integer as stored,
         ${merchant ? 't.merchant_url, t.sealed, t.session_url,' : ''}
         d.id, d.event_id, d.audience_id, d.endpoint_id, d.aggregate_id, d.payload, d.attempts, d.lease_token,
         d.status = 'HELD' as held, n.url as endpoint_url, n.sealed as endpoint_sealed, ${RECORDED_OUTCOMES} as recorded
       from (select 1) one left join (lead_event g ${merchant ? 'left join target t on t.grp = g.grp' : ''}
         left join (inserted d join i di on di.event_id = d.event_id
           join numbered n on n.event_id = d.event_id and n.endpoint_id = d.endpoint_id) on di.grp = g.grp) on true
       -- Each event's deliveries in its endpoints' order: the primary endpoint first.
       order by g.grp, di.nth, n.n`,
      [
        recordingOf(records),
        JSON.stringify(
          groups.flatMap(({ events, take }, grp) =>
            events.map((row, index) => ({
              event_id: row.eventId,
              event_kind: row.eventKind,
              audience_id: row.audienceId,
              aggregate_id: row.aggregateId,
              livemode: row.livemode,
              sequence: row.sequence,
              payload: row.payload,
              created_at: row.now.toISOString(),
              ids: row.deliveryIds,
              primary_on: row.primaryUrlSet ?? false,
              grp,
              nth: index + 1,
              take: take && leaseUntil !== null,
            })),
          ),
        ),
        leaseUntil,
        JSON.stringify(held),
      ],
    );
    const found = rows as Array<
      IntakenDelivery &
        MerchantTarget & { grp: number | null; known: boolean; stored: number; recorded: RecordedRow[] | string }
    >;
    const recorded = recordOutcomes(records, found[0]!.recorded);
    const intakes = groups.map(({ events }, grp): IntakeResult | undefined => {
      const of = found.filter((row) => row.grp === grp);
      const head = of[0];
      if (!head?.known) return undefined;
      const { merchant_url, sealed, session_url, stored } = head;
      const place = new Map(events.map((row, index) => [row.eventId, index]));
      return {
        target: merchant ? { merchant_url, sealed, session_url } : null,
        stored: stored > 0,
        deliveries: of
          .filter((delivery) => delivery.id !== null)
          .sort((a, b) => place.get(a.event_id)! - place.get(b.event_id)!)
          .map(
            ({
              merchant_url: _m,
              sealed: _s,
              session_url: _u,
              stored: _n,
              known: _k,
              recorded: _r,
              grp: _g,
              ...delivery
            }) => delivery,
          ),
      };
    });
    return { intakes, recorded };
  }

  /**
   * Takes due deliveries until `leaseUntil`, in one statement: those due now that nobody holds
   * and that are next in their aggregate's order (IN_ORDER), oldest due first, at most `limit`,
   * and for each audience at most `perAudience` less what this worker already has in flight for
   * it (`load`), so a slow receiver occupies a bounded share. Each gets a new fencing token (a
   * takeover makes the previous owner's token stale). The lease and the order are re-checked
   * under the row lock: of two workers racing for a row, one gets it. `candidates`: how many were
   * due and free (up to `candidates` looked at); more than were taken means some wait for room.
   *
   * The same statement holds and releases (issue 46, suspension): a due delivery whose owner is
   * suspended (auth.suspended_owners) becomes HELD, unattempted and with no retry counted, and
   * every HELD one whose owner is no longer suspended is PENDING again, due now (`released`: the
   * next claim takes them, in order: IN_ORDER counts HELD deliveries as not yet sent).
   */
  async claimDue(
    knex: Knex,
    options: {
      limit: number;
      candidates: number;
      perAudience: number;
      load: ReadonlyMap<string, number>;
      leaseUntil: Date;
    },
  ): Promise<{ claimed: ClaimedDelivery[]; candidates: number; held: number; released: number }> {
    const { rows } = await rawQuery(
      knex,
      `with recursive held as (
         -- From the (few) suspended owners to their due deliveries (webhook_deliveries_owner_due_index).
         update ${DELIVERIES} d set status = 'HELD', next_attempt_at = null, updated_at = now()
         where d.audience_id in (select s.owner_id from ${SUSPENDED_OWNERS} s)
           and d.status = 'PENDING' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
         returning d.id),
       -- The owners with HELD deliveries, one index probe each (a loose index scan): a long-suspended
       -- owner's many HELD rows are not read at every claim to find that none may go yet.
       held_owners as (
         (select h.audience_id from ${DELIVERIES} h where h.status = 'HELD' order by h.audience_id limit 1)
         union all
         select (select h.audience_id from ${DELIVERIES} h where h.status = 'HELD' and h.audience_id > o.audience_id
                 order by h.audience_id limit 1)
         from held_owners o where o.audience_id is not null),
       released as (
         update ${DELIVERIES} d set status = 'PENDING', next_attempt_at = now(), updated_at = now()
         where d.status = 'HELD' and d.audience_id in (
           select o.audience_id from held_owners o where o.audience_id is not null and not ${ownerSuspended('o')})
         returning d.id),
       candidates as (
         select d.id, d.audience_id, d.next_attempt_at from ${DELIVERIES} d
         where d.status = 'PENDING' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now()) and ${IN_ORDER}
           and not ${ownerSuspended('d')}
         order by d.next_attempt_at, d.id limit ?),
       picked as (
         select r.id from (select c.*, row_number() over (partition by c.audience_id order by c.next_attempt_at, c.id) as nth from candidates c) r
         where r.nth + coalesce((?::jsonb ->> r.audience_id)::integer, 0) <= ?
         order by r.next_attempt_at, r.id limit ?),
       claimed as (
         update ${DELIVERIES} d set lease_until = ?, lease_token = gen_random_uuid()::text
         from picked p
         where d.id = p.id and d.status = 'PENDING' and (d.lease_until is null or d.lease_until < now()) and ${IN_ORDER}
         returning d.id, d.event_id, d.audience_id, d.endpoint_id, d.aggregate_id, d.payload, d.attempts, d.lease_token)
       select n.candidates, (select count(*) from held)::integer as held, (select count(*) from released)::integer as released, c.*,
         w.url as endpoint_url, w.secret_sealed as endpoint_sealed, w.status as endpoint_status, t.merchant_url, t.sealed, t.session_url
       from (select count(*)::integer as candidates from candidates) n left join claimed c on true
         -- Each attempt's target, read here rather than by a statement of its own (issue 53: statements per payment).
         left join ${ENDPOINTS} w on w.id = c.endpoint_id
         left join lateral (${merchantTarget('c.aggregate_id', 'c.audience_id')}) t on c.endpoint_id = 'we_' || c.audience_id`,
      [
        options.candidates,
        JSON.stringify(Object.fromEntries(options.load)),
        options.perAudience,
        options.limit,
        options.leaseUntil,
      ],
    );
    const found = rows as Array<
      { candidates: number; held: number; released: number } & ClaimedDelivery & ClaimedTargetColumns
    >;
    return {
      candidates: found[0]?.candidates ?? 0,
      held: found[0]?.held ?? 0,
      released: found[0]?.released ?? 0,
      claimed: found.filter((row) => row.id !== null).map(claimedDelivery),
    };
  }

  /**
   * Keeps the claim of an attempt in flight until `leaseUntil`, if this worker still holds it;
   * false: it was taken over (or dropped by a manual retry).
   */
  async renewLease(knex: Knex, id: string, leaseToken: string, leaseUntil: Date): Promise<boolean> {
    const renewed = await rawQuery(
      knex,
      `update ${DELIVERIES} set lease_until = ? where id = ? and lease_token = ? and status = 'PENDING' returning id`,
      [leaseUntil, id, leaseToken],
    );
    return renewed.rows.length > 0;
  }

  /**
   * One statement: the delivery's new state, and the attempt's record, only if this worker still
   * holds the claim (its fencing token: a takeover or a manual retry replaced or dropped it).
   * `recorded` false: nothing recorded. `laterPending`: another delivery of the same aggregate to
   * the same endpoint is PENDING (it may have waited for this one), so the worker looks for due
   * deliveries again at once rather than after every attempt.
   */
  async recordAttempt(
    knex: Knex,
    delivery: ClaimedDelivery,
    attempt: AttemptRecord,
  ): Promise<{ recorded: boolean; laterPending: boolean }> {
    const recorded = await rawQuery(
      knex,
      `with updated as (
         update ${DELIVERIES} set status = ?, attempts = ?, url = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
           lease_until = null, lease_token = null, delivered_at = ?, replayed_at = null, updated_at = now()
         where id = ? and lease_token = ? returning id, endpoint_id, aggregate_id),
       attempt as (
         insert into ${ATTEMPTS} (delivery_id, number, url, started_at, duration_ms, status_code, error)
         select id, ?, ?, ?, ?, ?, ? from updated returning delivery_id)
       select exists (select 1 from ${DELIVERIES} e join updated u on e.endpoint_id = u.endpoint_id and e.aggregate_id = u.aggregate_id
           where e.status = 'PENDING' and e.id <> u.id) as later_pending
       from attempt`,
      [
        attempt.status,
        attempt.number,
        attempt.url,
        attempt.statusCode,
        attempt.error,
        attempt.nextAttemptAt,
        attempt.deliveredAt,
        delivery.id,
        delivery.lease_token,
        attempt.number,
        attempt.url,
        attempt.startedAt,
        attempt.durationMs,
        attempt.statusCode,
        attempt.error,
      ],
    );
    const row = recorded.rows[0] as { later_pending: boolean } | undefined;
    return { recorded: row !== undefined, laterPending: row?.later_pending ?? false };
  }

  /**
   * Attempts recorded together in one statement, each only while its worker still holds the claim
   * (the records that found no intake to ride on, RidingRecords). Answers each one's outcome by
   * delivery id, as recordAttempt.
   */
  async recordAttempts(
    knex: Knex,
    records: ReadonlyArray<{ delivery: ClaimedDelivery; attempt: AttemptRecord }>,
  ): Promise<Map<string, RecordOutcome>> {
    const { rows } = await rawQuery(knex, `with ${RECORDING} select ${RECORDED_OUTCOMES} as recorded`, [
      recordingOf(records),
    ]);
    return recordOutcomes(records, (rows[0] as { recorded: RecordedRow[] | string }).recorded);
  }

  /**
   * A manual retry by the delivery's audience (merchant or TPP): due now whatever its status, and
   * any claim dropped (an attempt still in flight loses it and will not be recorded over this
   * one). Null for a delivery that is not this audience's.
   */
  async resetForRetry(em: EntityManager, audienceId: string, id: string): Promise<WebhookDeliveryEntity | null> {
    return em.transactional(async (tx) => {
      const found = await tx.findOne(WebhookDeliveryEntity, { id, audienceId });
      if (!found) return null;
      found.status = 'PENDING';
      found.nextAttemptAt = new Date();
      found.leaseUntil = null;
      found.leaseToken = null;
      return found;
    });
  }

  /**
   * A replay's writes (API-CONTRACT: POST /webhooks/endpoints/{id}/replay; the rules and checks are
   * webhook-endpoint/webhook-replay.ts'), in one statement, in the replay's transaction: of the
   * window's events (replayWindowEvents), those whose delivery to the endpoint FAILED, and if
   * `take` says so those it never had (a delivery made) and those DELIVERED to it, go to it again,
   * each with its own event id, due now and marked `replayed_at` until their attempt is recorded.
   * A PENDING or HELD delivery is never touched: it is on its way. Their order per aggregate is
   * the usual one (IN_ORDER). Answers how many were queued.
   */
  async requeue(
    em: EntityManager,
    window: ReplayWindow,
    take: { missing: boolean; delivered: boolean },
  ): Promise<number> {
    const events = replayWindowEvents(window);
    const rows: Array<{ replayed: number }> = await em.execute(
      `with v as (${events.sql}),
       reset as (
         update ${DELIVERIES} d set status = 'PENDING', next_attempt_at = now(), lease_until = null, lease_token = null,
           replayed_at = now(), updated_at = now()
         where d.endpoint_id = ? and d.event_id in (select id from v) and (d.status = 'FAILED' or (?::boolean and d.status = 'DELIVERED'))
         returning d.id),
       made as (
         insert into ${DELIVERIES} (id, event_id, event_kind, audience_id, endpoint_id, aggregate_id, livemode, sequence, payload, status,
           attempts, next_attempt_at, replayed_at, created_at, updated_at)
         select 'whd_' || substr(md5(gen_random_uuid()::text), 1, 24), v.id, v.kind, v.audience_id, ?, v.aggregate_id, v.livemode,
           v.sequence, v.payload, 'PENDING', 0, now(), now(), now(), now()
         from v where ?::boolean
         on conflict (event_id, endpoint_id) do nothing
         returning id)
       select ((select count(*) from reset) + (select count(*) from made))::integer as replayed`,
      [...events.bindings, window.endpoint.id, take.delivered, window.endpoint.id, take.missing],
    );
    return rows[0]!.replayed;
  }

  /**
   * The 30-day retention, at most `batch` of each at a time: logged events created before
   * `before`, and deliveries created before it that are settled (DELIVERED or FAILED), with their
   * attempts (on delete cascade). A delivery still PENDING or HELD is left to finish; it goes once settled.
   */
  async pruneLog(knex: Knex, before: Date, batch: number): Promise<{ events: number; deliveries: number }> {
    const { rows } = await rawQuery(
      knex,
      `with events as (delete from ${EVENTS} where id in (select id from ${EVENTS} where created_at < ? limit ?) returning id),
         deliveries as (delete from ${DELIVERIES} where id in (
           select id from ${DELIVERIES} where created_at < ? and status <> 'PENDING' and status <> 'HELD' limit ?) returning id)
       select (select count(*) from events)::integer as events, (select count(*) from deliveries)::integer as deliveries`,
      [before, batch, before, batch],
    );
    return rows[0] as { events: number; deliveries: number };
  }

  /** A further endpoint's target as an attempt reads it; undefined once deleted. */
  async endpointTargetOf(knex: Knex, endpointId: string): Promise<EndpointTarget | undefined> {
    return (
      await rawQuery<EndpointTarget>(knex, `select url, secret_sealed, status from ${ENDPOINTS} where id = ?`, [
        endpointId,
      ])
    ).rows[0];
  }
}

/** Stateless: one for everyone. */
export const deliveries = new DeliveryRepository();
