/**
 * Settlement lifecycles (API-CONTRACT "Settlement"), modelled on Mojaloop's settlement windows:
 * a window is OPEN while it takes obligations, closes, and its net positions are then settled
 * one by one at the banks' cores. An executed cycle is never settled again: SETTLED is final,
 * and every core call of a position carries the position's own reference.
 */
export const CYCLE_STATUSES = ['OPEN', 'SETTLING', 'SETTLED', 'PARTIALLY_FAILED'] as const;
export type CycleStatus = (typeof CYCLE_STATUSES)[number];

export const POSITION_STATUSES = ['PENDING', 'SETTLED', 'FAILED'] as const;
export type PositionStatus = (typeof POSITION_STATUSES)[number];

export type CycleTrigger =
  /** The cycle took its obligations and fixed its net positions: calls to the cores start. */
  | 'closed_with_positions'
  /** The cycle took no obligations, or they netted to nothing: there is nothing to call. */
  | 'closed_empty'
  /** Every position is SETTLED. */
  | 'all_settled'
  /** No position is PENDING and at least one is FAILED (refused by its core). */
  | 'some_failed'
  /** A FAILED position is being tried again and its outcome is not known yet. */
  | 'retrying';

export type PositionTrigger =
  /** The core booked the movement (now, earlier by the same reference, or as its statement shows). */
  | 'booked'
  /** The core refused it (a funds or other 4xx refusal of a first call, or a statement without it). */
  | 'refused'
  /** A retry of a refused position whose outcome is unknown (a timeout, a 5xx). */
  | 'retried_unknown';

export interface Transition<S extends string, T extends string> {
  from: S | null;
  trigger: T;
  to: S;
}

/** The one table of cycle moves; a move not in it is refused. */
export const CYCLE_TRANSITIONS: readonly Transition<CycleStatus, CycleTrigger>[] = [
  { from: 'OPEN', trigger: 'closed_with_positions', to: 'SETTLING' },
  { from: 'OPEN', trigger: 'closed_empty', to: 'SETTLED' },
  { from: 'SETTLING', trigger: 'all_settled', to: 'SETTLED' },
  { from: 'SETTLING', trigger: 'some_failed', to: 'PARTIALLY_FAILED' },
  // FAILED positions are retried with backoff (or by an operator) until their core books them.
  { from: 'PARTIALLY_FAILED', trigger: 'all_settled', to: 'SETTLED' },
  { from: 'PARTIALLY_FAILED', trigger: 'retrying', to: 'SETTLING' },
];

/** The one table of position moves; SETTLED is final (its reference is never sent again). */
export const POSITION_TRANSITIONS: readonly Transition<PositionStatus, PositionTrigger>[] = [
  { from: 'PENDING', trigger: 'booked', to: 'SETTLED' },
  { from: 'PENDING', trigger: 'refused', to: 'FAILED' },
  { from: 'FAILED', trigger: 'booked', to: 'SETTLED' },
  { from: 'FAILED', trigger: 'refused', to: 'FAILED' },
  { from: 'FAILED', trigger: 'retried_unknown', to: 'PENDING' },
];

export function cycleMove(from: CycleStatus, trigger: CycleTrigger): CycleStatus | undefined {
  return CYCLE_TRANSITIONS.find((row) => row.from === from && row.trigger === trigger)?.to;
}

export function positionMove(from: PositionStatus, trigger: PositionTrigger): PositionStatus | undefined {
  return POSITION_TRANSITIONS.find((row) => row.from === from && row.trigger === trigger)?.to;
}

/**
 * The trigger a cycle's positions call for. A PENDING position means calls are under way
 * ('retrying': no move from SETTLING, back to SETTLING from PARTIALLY_FAILED); cycleMove says
 * whether the trigger moves the cycle from where it is.
 */
export function cycleTriggerFor(statuses: readonly PositionStatus[]): CycleTrigger {
  if (statuses.every((status) => status === 'SETTLED')) return 'all_settled';
  if (statuses.some((status) => status === 'PENDING')) return 'retrying';
  return 'some_failed';
}
