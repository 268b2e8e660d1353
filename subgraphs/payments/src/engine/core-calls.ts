import type { Movement } from '../movement/movement';
import type { PaymentExecutionEntity } from './execution.entity';
import type { MovementCall } from './settle';

/**
 * The core calls a movement's steps make, each with its fixed reference: the movement's id for
 * the payer's debit and the payee's credit, `${id}:reversal` for the money given back. Whoever
 * repeats a step (a retry, the recovery job after a crash) repeats the same call, which the core
 * answers from its books.
 */

/** The compensating credit's core reference: distinct from the payment's own credit reference. */
const reversalReference = (movementId: string): string => `${movementId}:reversal`;

/**
 * The description of every movement names the movement, so the statement of a core that keeps
 * only descriptions can still be reconciled by reference.
 */
function describe(movement: Movement, prefix = ''): string {
  const text = movement.description ?? `Payment ${movement.reference ?? ''}`.trim();
  return `${prefix}${text.slice(0, 450)} (${movement.id})`;
}

export const payerDebit = (movement: Movement, execution: PaymentExecutionEntity): MovementCall => ({
  bank: movement.debtorBank!,
  livemode: movement.livemode,
  iban: execution.debtorIban,
  reference: movement.id,
  amount: Number(movement.amount),
  currency: movement.currency,
  direction: 'DEBIT',
  description: describe(movement),
});

export const payeeCredit = (movement: Movement): MovementCall => ({
  bank: movement.creditorBank,
  livemode: movement.livemode,
  iban: movement.creditorIban,
  reference: movement.id,
  amount: Number(movement.amount),
  currency: movement.currency,
  direction: 'CREDIT',
  description: describe(movement),
});

export const payerReversal = (movement: Movement, execution: PaymentExecutionEntity): MovementCall => ({
  ...payerDebit(movement, execution),
  reference: reversalReference(movement.id),
  direction: 'CREDIT',
  description: describe(movement, 'Reversal: '),
});
