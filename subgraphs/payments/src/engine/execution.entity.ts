import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { ExecutionKind } from '../movement/movement';

/**
 * What the engine must do next for a movement (a session, a mandate charge, a payment order):
 * - debit: take the money from the payer (reference = movement id); same bank, the credit follows in
 *   the same run and the row goes from debit straight to the credit's outcome (one record)
 * - credit: pay the payee (reference = movement id); cross bank with debtor_bank, over the rail
 * - confirm: rail credit booked, waiting for the creditor bank's credit-confirmed callback
 * - reverse: give the payer the money back (reference = `${movement id}:reversal`), then FAILED
 * - resolve_debit: the debit's outcome is unknown and the payment is abandoned: replaying the same
 *   reference (or the core's statement) tells whether money was taken, which is then reversed
 * - attention: the engine could not establish what the core did in time (or the core refuses to
 *   give the money back): an operator decides (see AttentionService)
 * - done: nothing left to do
 * What each step is, and where a record may take it, is in one table: step-table.ts.
 */
export type ExecutionStep = 'debit' | 'credit' | 'confirm' | 'reverse' | 'resolve_debit' | 'attention' | 'done';

/**
 * The engine's persisted progress for one movement, created with it (PaymentEngine.startIn: a
 * session when the payer's OTP is accepted, a charge when the merchant charges, an order's
 * movement when open-banking requests it). Every core call is preceded and followed by a short
 * write on this row, never held across the call, so a process that dies anywhere leaves a row the
 * recovery job can resume with the same references.
 */
@Entity({ tableName: 'payment_executions' })
export class PaymentExecutionEntity {
  /** The movement's id: a session's (ops_…), a mandate charge's (chg_…), a payment order's (po_…), a VRP payment's (vrp_…) or a refund's (rfd_…). */
  @PrimaryKey({ type: 'text' })
  movementId!: string;

  /** Whose movement this is: the engine reads and moves it through that kind's owner (MovementKinds). */
  @Property({ type: 'text' })
  kind: ExecutionKind = 'session';

  @Property({ type: 'text' })
  step!: ExecutionStep;

  /** alias or iban, as the payer entered it at checkout. */
  @Property({ type: 'text' })
  payerType!: string;

  @Property({ type: 'text' })
  payerValue!: string;

  @Property({ type: 'text' })
  debtorIban!: string;

  /**
   * Checkout: HMAC (platform secret) of the payer and OTP that claimed the session, so the same
   * authorization sent again (a lost answer, another front door) is told the truth, not refused.
   */
  @Property({ type: 'text', nullable: true })
  authorizationHash: string | null = null;

  /** The request that authorized the payment (req_…): sent as X-Request-Id on every core call of it. */
  @Property({ type: 'text', nullable: true })
  requestId: string | null = null;

  /** Until then the movement belongs to whoever set it; afterwards the recovery job may take it over. */
  @Property({ type: 'timestamptz' })
  leaseUntil!: Date;

  /**
   * The current owner's fencing token: set when the row is created and each time the recovery
   * job takes it over. The engine's records and lease renewals are conditional on it, so an
   * owner that was taken over (a paused or partitioned process) can never write again.
   */
  @Property({ type: 'text', nullable: true })
  leaseToken: string | null = null;

  /** Core calls made for this movement, retries of a step included. */
  @Property({ type: 'integer' })
  attempts = 0;

  /** Why the payment is being abandoned, while the money is being returned (the movement's failure once FAILED). */
  @Property({ type: 'text', nullable: true })
  pendingFailureCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  pendingFailureDetail: string | null = null;

  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  /**
   * Since when the current step's outcome has been unknown (no answer, a 5xx, an unusable answer,
   * a refused replay): any later call of the step is a replay, whose refusal proves nothing.
   * Null while the outcome is known.
   */
  @Property({ type: 'timestamptz', nullable: true })
  unknownSince: Date | null = null;

  /** Calls of the current step since its outcome became unknown. */
  @Property({ type: 'integer' })
  replays = 0;

  /** The step the engine was at when it handed the movement to an operator. */
  @Property({ type: 'text', nullable: true })
  attentionStep: ExecutionStep | null = null;

  @Property({ type: 'text', nullable: true })
  attentionReason: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  attentionSince: Date | null = null;

  /** The operator's decision on a movement that needed attention, with their note. */
  @Property({ type: 'text', nullable: true })
  resolution: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  resolvedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  debitBookedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  debitTransactionId: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  creditBookedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  creditTransactionId: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  reversalBookedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  reversalTransactionId: string | null = null;

  /** Retrieval reference of the rail transfer, from the creditor bank's confirmation. */
  @Property({ type: 'text', nullable: true })
  rrn: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  confirmedAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
