import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import type { Currency } from '@gateway/kernel';

/**
 * What the engine executes: one movement of money from a payer's account to a payee's, whoever
 * asked for it. A payment session is one (checkout authorizes it); an Open Banking payment
 * order is another (open-banking requests it, order-movement/ records it), and so is a variable
 * recurring payment (open-banking requests it the same way, vrp-movement/ records it). The engine
 * needs the same facts of each and moves each through its owner's own transition table. A mandate
 * charge and a refund (the merchant's settlement account to the payer's) are others.
 */
export interface Movement {
  /** ops_…, chg_…, po_…, vrp_… or rfd_…: the execution's key and the core reference of the debit and the credit. */
  id: string;
  /** Its world: false for a test object, whose core calls go to test cores only. */
  livemode: boolean;
  status: string;
  /** internal (same bank) or rail (cross bank); fixed before the debit. */
  settlementType: string | null;
  debtorBank: string | null;
  creditorBank: string;
  creditorIban: string;
  /** Minor units. */
  amount: bigint;
  currency: Currency;
  description: string | null;
  /** The requester's own reference (a merchant's), shown in descriptions when there is no description. */
  reference: string | null;
  /** Why it failed, once FAILED (or REJECTED): set with the failing move and only then. */
  failureCode: string | null;
  failureDetail: string | null;
}

/** The moves the engine makes; every kind's transition table has each of them. */
export type EngineTrigger =
  'internal_credit_booked' | 'cross_bank_debit_booked' | 'credit_confirmed' | 'credit_evidenced' | 'core_failure';

/** Why a movement failed, recorded with its core_failure move. */
export interface EngineFailure {
  failureCode: string;
  failureDetail: string;
}

/** Which owner's records an execution belongs to (payment_executions.kind). */
export type ExecutionKind = 'session' | 'payment_order' | 'mandate_charge' | 'refund' | 'vrp_payment';

/**
 * How the engine reads and moves one kind of movement, through that kind's one writer: every
 * move is conditional on the status the engine read and writes its owner's events in the same
 * transaction.
 */
export interface MovementKind<M extends Movement = Movement> {
  /** Untracked: `move` updates it in place. */
  load(em: EntityManager, id: string): Promise<M | null>;
  /** Its entity: the engine locks the movement's row while it records a step with a move. */
  entity: EntityClass<M>;
  /**
   * A move of the kind's table from the status the engine read, as parts of the engine's
   * OneStatement (`moved` and, when the move has one, its event `moved_event`), written only if
   * part `when` changed a row: the changes to apply to `movement` once part `moved` changed its row.
   */
  moveIn(
    statement: OneStatement,
    movement: M,
    trigger: EngineTrigger,
    now: Date,
    failure: EngineFailure | undefined,
    when: string,
  ): Partial<M>;
  /** Nothing moves it any more (an operator's answer after FAILED stands). */
  isFinal(movement: M): boolean;
  /**
   * A final movement whose payer the engine has since found whole (the reversal an operator asked
   * for is booked, or the debit never was): what its owner changes, as parts of the engine's
   * OneStatement written only if part `when` changed a row. Answers the changes to apply to
   * `movement`, or undefined when there is nothing to change. Only a kind that holds something
   * while an operator checks needs it: a refund keeps its amount taken (refund.moves.ts).
   */
  payerWholeIn?(statement: OneStatement, movement: M, now: Date, when: string): Partial<M> | undefined;
  /**
   * An operator's finding on a movement held at CBS_OUTCOME_UNKNOWN (the attention list's
   * CREDITED / NOT_CREDITED), as parts of the caller's OneStatement written only if part `when`
   * changed a row, and only while the movement is still held: its owner's move (`moved`) with its
   * event, and whatever it held released. Answers the changes to apply to `movement`. Only a kind
   * that holds something while an operator checks has it: a refund (refund.moves.ts).
   */
  settleHeldIn?(statement: OneStatement, movement: M, finding: HeldFinding, now: Date, when: string): Partial<M>;
}

/**
 * What an operator found at the cores about a movement held at CBS_OUTCOME_UNKNOWN (issue 46):
 * the payee was credited by it, or was not. The attention list's CREDITED / NOT_CREDITED.
 */
export type HeldFinding = 'credited' | 'not_credited';

export type MovementKinds = Record<ExecutionKind, MovementKind>;

/** The kind a movement id belongs to, by its prefix (the credit-confirmed callback knows only the reference). */
export const kindOfId = (id: string): ExecutionKind =>
  id.startsWith('po_')
    ? 'payment_order'
    : id.startsWith('vrp_')
      ? 'vrp_payment'
      : id.startsWith('chg_')
        ? 'mandate_charge'
        : id.startsWith('rfd_')
          ? 'refund'
          : 'session';
