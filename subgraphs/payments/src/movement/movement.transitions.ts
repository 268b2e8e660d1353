import type { Transition } from '@gateway/kernel';
import type { EngineTrigger } from './movement';

/** The statuses of a movement the engine runs from its creation (a mandate charge, a payment order's movement). */
export const MOVEMENT_STATUSES = ['PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED'] as const;
export type MovementStatus = (typeof MOVEMENT_STATUSES)[number];

export const FINAL_MOVEMENT_STATUSES: ReadonlySet<MovementStatus> = new Set(['COMPLETED', 'FAILED']);

/** Which timestamp column records reaching a status. */
export const MOVEMENT_REACHED_AT = {
  PROCESSING: 'createdAt',
  SETTLEMENT_PENDING: 'settlementPendingAt',
  COMPLETED: 'completedAt',
  FAILED: 'failedAt',
} as const satisfies Record<MovementStatus, string>;

/**
 * The table of such a movement, with the session's guarantees (same bank: COMPLETED when the
 * credit is booked; cross bank: SETTLEMENT_PENDING after the debit, COMPLETED only on the
 * creditor bank's confirmation or the evidence of the booked credit). Each kind names its
 * creation and its two events.
 */
export function engineMovementTransitions<T extends string, E extends string>(
  created: T,
  events: { completed: E; failed: E },
): Array<Transition<MovementStatus, T | EngineTrigger, E | null>> {
  return [
    { from: null, trigger: created, to: 'PROCESSING', event: null },
    { from: 'PROCESSING', trigger: 'internal_credit_booked', to: 'COMPLETED', event: events.completed },
    { from: 'PROCESSING', trigger: 'cross_bank_debit_booked', to: 'SETTLEMENT_PENDING', event: null },
    { from: 'PROCESSING', trigger: 'core_failure', to: 'FAILED', event: events.failed },
    { from: 'SETTLEMENT_PENDING', trigger: 'credit_confirmed', to: 'COMPLETED', event: events.completed },
    { from: 'SETTLEMENT_PENDING', trigger: 'credit_evidenced', to: 'COMPLETED', event: events.completed },
    { from: 'SETTLEMENT_PENDING', trigger: 'core_failure', to: 'FAILED', event: events.failed },
  ];
}

/** What a merchant sees of a refund or a charge (contract: PROCESSING, COMPLETED, FAILED): the rail's wait is part of PROCESSING. */
export const publicMovementStatus = (status: MovementStatus): 'PROCESSING' | 'COMPLETED' | 'FAILED' =>
  status === 'SETTLEMENT_PENDING' ? 'PROCESSING' : status;
