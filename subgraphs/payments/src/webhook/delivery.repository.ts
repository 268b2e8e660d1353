import type { Knex } from '@mikro-orm/knex';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** A delivery as the worker holds it while attempting it (the row's own column names). */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  /** mer_… or tpp_… */
  audience_id: string;
  aggregate_id: string;
  payload: string;
  attempts: number;
  /** The claim's fencing token: the attempt is recorded only while it is still the row's. */
  lease_token: string;
}

/** A new delivery of one event to one audience, a merchant or a TPP (intake). */
export interface NewDelivery {
  id: string;
  eventId: string;
  eventKind: string;
  audienceId: string;
  aggregateId: string;
  /** The event's place among its aggregate's events; null for an event without one. */
  sequence: number | null;
  payload: string;
  now: Date;
}

/** One attempt's result, recorded with the delivery's new state. */
export interface AttemptRecord {
  number: number;
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  url: string | null;
  statusCode: number | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

const DELIVERIES = 'payments.webhook_deliveries';

/** How long a delivery waits for the delivery of its aggregate's previous event to appear (it may be a non-webhook event, or still on the bus). */
export const PREVIOUS_EVENT_WAIT_SECONDS = 5;

/**
 * Whether delivery `d` is next in its aggregate's order for its audience (API-CONTRACT "Webhook
 * headers": in order per session, whatever the number of dispatchers): no earlier delivery of
 * the aggregate is still PENDING (sent, retrying or waiting), and the previous event's delivery
 * exists, or is given up on after PREVIOUS_EVENT_WAIT_SECONDS. Only the aggregate waits: one dead
 * endpoint holds up its own sessions, nobody else's.
 */
const IN_ORDER = `not exists (select 1 from ${DELIVERIES} e
    where e.audience_id = d.audience_id and e.aggregate_id = d.aggregate_id and e.status = 'PENDING' and e.sequence < d.sequence)
  and (d.sequence is null or d.sequence <= 1 or d.created_at < now() - interval '${PREVIOUS_EVENT_WAIT_SECONDS} seconds'
    or exists (select 1 from ${DELIVERIES} e where e.audience_id = d.audience_id and e.aggregate_id = d.aggregate_id and e.sequence = d.sequence - 1))`;
const ATTEMPTS = 'payments.webhook_attempts';

/**
 * The one writer of payments.webhook_deliveries and payments.webhook_attempts (CONVENTIONS
 * "Data": one owner per table): the dispatcher's intake, the worker's claims and records, and a
 * merchant's or TPP's manual retry all go through here. The intake and the worker use knex with SQL
 * written out, on purpose: the claim must re-check the lease under the row lock and answer the
 * rows it took in one statement, and an attempt is recorded in one statement only if its worker
 * still holds the claim (its fencing token); MikroORM's unit of work cannot say either. The
 * manual retry is an ordinary entity change.
 */
export class DeliveryRepository {
  /**
   * The current target of an event for a merchant: the session's own URL, the merchant's URL and
   * sealed secret. One query. (A TPP's target is open-banking's: asked through the router.)
   */
  async merchantTargetOf(knex: Knex, merchantId: string, aggregateId: string): Promise<{ merchant_url: string | null; sealed: string; session_url: string | null } | undefined> {
    return (
      await knex.raw(
        `select m.webhook_url as merchant_url, m.webhook_secret_sealed as sealed, s.webhook_url as session_url
         from payments.merchants m left join payments.payment_sessions s on s.id = ? where m.id = ?`,
        [aggregateId, merchantId],
      )
    ).rows[0];
  }

  /** The delivery of an event to its audience, unclaimed; undefined when it exists already (the bus may hand an event over twice). */
  async insert(knex: Knex, delivery: NewDelivery): Promise<{ id: string } | undefined> {
    const inserted = (await knex(DELIVERIES)
      .insert({
        id: delivery.id,
        event_id: delivery.eventId,
        event_kind: delivery.eventKind,
        audience_id: delivery.audienceId,
        aggregate_id: delivery.aggregateId,
        sequence: delivery.sequence,
        payload: delivery.payload,
        status: 'PENDING',
        attempts: 0,
        next_attempt_at: delivery.now,
        lease_until: null,
        created_at: delivery.now,
        updated_at: delivery.now,
      })
      // At least once: the bus may hand over an event twice; it is still one delivery.
      .onConflict(['event_id', 'audience_id'])
      .ignore()
      .returning(['id'])) as Array<{ id: string }>;
    return inserted[0];
  }

  /** Deliveries due now that nobody holds and that are next in their aggregate's order, oldest due first. */
  async due(knex: Knex, limit: number): Promise<Array<{ id: string; audience_id: string }>> {
    return (
      await knex.raw(
        `select d.id, d.audience_id from ${DELIVERIES} d
         where d.status = 'PENDING' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now()) and ${IN_ORDER}
         order by d.next_attempt_at limit ?`,
        [limit],
      )
    ).rows;
  }

  /**
   * Takes the given deliveries until `leaseUntil`, those still free and next in their aggregate's
   * order, each with a new fencing token (a takeover makes the previous owner's token stale). The
   * lease is re-checked under the row lock: of two workers racing for a row, one gets it.
   */
  async claim(knex: Knex, ids: string[], leaseUntil: Date): Promise<ClaimedDelivery[]> {
    return (
      await knex.raw(
        `update ${DELIVERIES} d set lease_until = ?, lease_token = gen_random_uuid()::text
         where d.id = any(?::text[]) and d.status = 'PENDING' and (d.lease_until is null or d.lease_until < now()) and ${IN_ORDER}
         returning d.id, d.event_id, d.audience_id, d.aggregate_id, d.payload, d.attempts, d.lease_token`,
        [leaseUntil, ids],
      )
    ).rows;
  }

  /**
   * Keeps the claim of an attempt in flight until `leaseUntil`, if this worker still holds it;
   * false: it was taken over (or dropped by a manual retry).
   */
  async renewLease(knex: Knex, id: string, leaseToken: string, leaseUntil: Date): Promise<boolean> {
    const renewed = await knex.raw(`update ${DELIVERIES} set lease_until = ? where id = ? and lease_token = ? and status = 'PENDING' returning id`, [leaseUntil, id, leaseToken]);
    return renewed.rows.length > 0;
  }

  /**
   * One statement: the delivery's new state, and the attempt's record, only if this worker still
   * holds the claim (its fencing token: a takeover or a manual retry replaced or dropped it).
   * False: nothing recorded.
   */
  async recordAttempt(knex: Knex, delivery: ClaimedDelivery, attempt: AttemptRecord): Promise<boolean> {
    const recorded = await knex.raw(
      `with updated as (
         update ${DELIVERIES} set status = ?, attempts = ?, url = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
           lease_until = null, lease_token = null, delivered_at = ?, updated_at = now()
         where id = ? and lease_token = ? returning id)
       insert into ${ATTEMPTS} (delivery_id, number, url, started_at, duration_ms, status_code, error)
       select id, ?, ?, ?, ?, ?, ? from updated returning delivery_id`,
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
    return recorded.rows.length > 0;
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
}

/** Stateless: one for everyone. */
export const deliveries = new DeliveryRepository();
