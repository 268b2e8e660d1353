import type { Knex } from '@mikro-orm/knex';
import { newId } from '@gateway/kernel';

/**
 * The least a same-bank payment needs of PostgreSQL, written by hand (issue 53 item 4), on tables
 * of its own in the bench's scratch database: what any gateway must keep so that a payment
 * survives a crash between two steps and its event reaches the merchant, and nothing else. Four
 * statements, each its own transaction:
 *
 *   1. the session inserted (PENDING);
 *   2. the session claimed by its payer (PENDING -> PROCESSING) with its execution row (step debit, a lease);
 *   3. the debit recorded (the core's reference; step credit);
 *   4. the credit recorded and the session COMPLETED, with its event and its delivery row.
 *
 * Keys are the primary keys; the one other index is the delivery queue's, which a webhook worker
 * needs to find what is due. No idempotency keys, no outbox, no sequences, no audit, no limits.
 */
export const BARE_SCHEMA = [
  `create table bare_sessions (id text primary key, merchant_id text not null, amount bigint not null,
     currency text not null, status text not null, payer text, created_at timestamptz not null default now(),
     updated_at timestamptz not null default now())`,
  `create table bare_executions (movement_id text primary key, session_id text not null, step text not null,
     lease_until timestamptz, debit_reference text, credit_reference text)`,
  `create table bare_events (id text primary key, aggregate_id text not null, kind text not null, payload text not null,
     created_at timestamptz not null default now())`,
  `create table bare_deliveries (id text primary key, event_id text not null, url text not null, status text not null,
     next_attempt_at timestamptz, payload text not null)`,
  `create index bare_deliveries_due on bare_deliveries (next_attempt_at) where status = 'PENDING'`,
];

export interface BarePayment {
  sessionId: string;
  movementId: string;
}

/** The four statements of one bare payment, run by the caller around the core calls and the POST. */
export function bareStatements(knex: Knex, webhookUrl: string) {
  return {
    async create(merchantId: string, amount: number, currency: string): Promise<BarePayment> {
      const sessionId = newId('paymentSession');
      await knex.raw(
        `insert into bare_sessions (id, merchant_id, amount, currency, status) values (?, ?, ?, ?, 'PENDING')`,
        [sessionId, merchantId, amount, currency],
      );
      return { sessionId, movementId: newId('transaction') };
    },
    async claim(payment: BarePayment, payer: string): Promise<void> {
      const { rowCount } = await knex.raw(
        `with claimed as (update bare_sessions set status = 'PROCESSING', payer = ?, updated_at = now()
           where id = ? and status = 'PENDING' returning id)
         insert into bare_executions (movement_id, session_id, step, lease_until)
         select ?, id, 'debit', now() + interval '3 seconds' from claimed`,
        [payer, payment.sessionId, payment.movementId],
      );
      if (rowCount !== 1) throw new Error(`bare payment ${payment.sessionId} not claimed`);
    },
    async debited(payment: BarePayment, reference: string): Promise<void> {
      const { rowCount } = await knex.raw(
        `update bare_executions set step = 'credit', debit_reference = ?, lease_until = now() + interval '3 seconds'
         where movement_id = ? and step = 'debit'`,
        [reference, payment.movementId],
      );
      if (rowCount !== 1) throw new Error(`bare payment ${payment.sessionId}: debit not recorded`);
    },
    /** The credit recorded, the session COMPLETED, its event and delivery written: the delivery's payload. */
    async completed(payment: BarePayment, reference: string): Promise<{ eventId: string; payload: string }> {
      const eventId = newId('event');
      const payload = JSON.stringify({
        id: eventId,
        event: 'payment.completed',
        data: { session_id: payment.sessionId },
      });
      const { rows } = await knex.raw(
        `with done as (update bare_executions set step = 'done', credit_reference = ?, lease_until = null
             where movement_id = ? and step = 'credit' returning session_id),
           completed as (update bare_sessions s set status = 'COMPLETED', updated_at = now()
             from done where s.id = done.session_id returning s.id),
           event as (insert into bare_events (id, aggregate_id, kind, payload)
             select ?, id, 'payment.completed', ? from completed returning id)
         insert into bare_deliveries (id, event_id, url, status, next_attempt_at, payload)
         select ?, id, ?, 'PENDING', now(), ? from event returning id`,
        [reference, payment.movementId, eventId, payload, newId('delivery'), webhookUrl, payload],
      );
      if ((rows as unknown[]).length !== 1) throw new Error(`bare payment ${payment.sessionId} not completed`);
      return { eventId, payload };
    },
  };
}
