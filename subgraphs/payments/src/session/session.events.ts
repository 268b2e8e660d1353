import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { recordEvent, recordEventIn, recordFirstEventIn, type FirstEvent } from '@gateway/events';
import type { PaymentSessionEntity } from './session.entity';
import type { PaymentEventKind } from './session.transitions';

export const SESSION_AGGREGATE = 'payment_session';

/**
 * The event payload: enough for a merchant to act without another call. payment.completed adds
 * settlement_type and creditor_bank (spec "Payment events"); payment.failed says why.
 */
export function sessionEventData(session: PaymentSessionEntity): Record<string, unknown> {
  return {
    session_id: session.id,
    livemode: session.livemode,
    status: session.status,
    amount: Number(session.amount),
    currency: session.currency,
    reference: session.reference,
    // The merchant's own keys, as they are when the event is written.
    metadata: session.metadata ?? {},
    merchant_id: session.merchantId,
    ...(session.status === 'COMPLETED'
      ? { settlement_type: session.settlementType, creditor_bank: session.creditorBank }
      : {}),
    ...(session.status === 'FAILED' ? { failure_code: session.failureCode } : {}),
  };
}

const eventInput = (kind: PaymentEventKind, session: PaymentSessionEntity) => ({
  kind,
  aggregateType: SESSION_AGGREGATE,
  aggregateId: session.id,
  audience: session.merchantId,
  data: sessionEventData(session),
});

/** Writes the event of a move in the caller's transaction (outbox): it commits with the move or not at all. */
export function recordSessionEvent(
  em: EntityManager,
  kind: PaymentEventKind,
  session: PaymentSessionEntity,
  now: Date,
): void {
  recordEvent(em, eventInput(kind, session), now);
}

/** The event of a move written as one statement (session.moves.ts): part `name`, written only if part `when` changed a row. */
export function recordSessionEventIn(
  statement: OneStatement,
  name: string,
  kind: PaymentEventKind,
  session: PaymentSessionEntity,
  now: Date,
  when?: string,
): void {
  recordEventIn(statement, name, eventInput(kind, session), now, when);
}

/** recordSessionEventIn for the event of the move that creates the session: its writer publishes it (publishFirstEvents). */
export function recordSessionFirstEventIn(
  statement: OneStatement,
  name: string,
  kind: PaymentEventKind,
  session: PaymentSessionEntity,
  now: Date,
  when?: string,
): FirstEvent {
  return recordFirstEventIn(statement, name, eventInput(kind, session), now, when);
}
