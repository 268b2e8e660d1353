import { GatewayError, transitionLookup, type Transition } from '@gateway/kernel';
import type { EngineTrigger } from '../movement/movement';
import {
  engineMovementTransitions,
  FINAL_MOVEMENT_STATUSES,
  MOVEMENT_REACHED_AT,
  MOVEMENT_STATUSES,
  publicMovementStatus,
  type MovementStatus,
} from '../movement/movement.transitions';

export const MANDATE_STATUSES = ['PENDING_CONFIRMATION', 'ACTIVE', 'CANCELLED', 'FAILED'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

export const FINAL_MANDATE_STATUSES: ReadonlySet<MandateStatus> = new Set(['CANCELLED', 'FAILED']);

export type MandateTrigger = 'created' | 'otp_accepted' | 'otp_failed_too_often' | 'cancelled' | 'revoked';

/**
 * Events of a mandate (audience: its merchant). A mandate that FAILED confirmation has no webhook
 * event in the contract; its internal event still moves a mandateUpdated subscriber to FAILED.
 */
export type MandateEventKind = 'mandate.activated' | 'mandate.cancelled' | 'internal.mandate.failed';

export type MandateTransition = Transition<MandateStatus, MandateTrigger, MandateEventKind | null>;

/**
 * The one table of mandate moves (API-CONTRACT "Mandates"): confirmed by the customer's OTP
 * (three wrong ones FAIL it), cancelled by the merchant, or revoked by the customer's bank (for
 * the customer or on its own account) while pending or active.
 */
export const MANDATE_TRANSITIONS: readonly MandateTransition[] = [
  { from: null, trigger: 'created', to: 'PENDING_CONFIRMATION', event: null },
  { from: 'PENDING_CONFIRMATION', trigger: 'otp_accepted', to: 'ACTIVE', event: 'mandate.activated' },
  { from: 'PENDING_CONFIRMATION', trigger: 'otp_failed_too_often', to: 'FAILED', event: 'internal.mandate.failed' },
  { from: 'PENDING_CONFIRMATION', trigger: 'cancelled', to: 'CANCELLED', event: 'mandate.cancelled' },
  { from: 'PENDING_CONFIRMATION', trigger: 'revoked', to: 'CANCELLED', event: 'mandate.cancelled' },
  { from: 'ACTIVE', trigger: 'cancelled', to: 'CANCELLED', event: 'mandate.cancelled' },
  { from: 'ACTIVE', trigger: 'revoked', to: 'CANCELLED', event: 'mandate.cancelled' },
];

export const mandateTransitionFor = transitionLookup(MANDATE_TRANSITIONS);

export const MANDATE_REACHED_AT = {
  PENDING_CONFIRMATION: 'createdAt',
  ACTIVE: 'confirmedAt',
  CANCELLED: 'cancelledAt',
  FAILED: 'failedAt',
} as const satisfies Record<MandateStatus, string>;

/** Why a mandate in `status` cannot take `trigger`, as a client reads it. */
export function mandateRefusal(id: string, status: MandateStatus, trigger: MandateTrigger): GatewayError {
  if (trigger === 'otp_accepted' || trigger === 'otp_failed_too_often') {
    return new GatewayError(
      'MANDATE_NOT_PENDING_CONFIRMATION',
      `mandate ${id} is ${status}: only a mandate PENDING_CONFIRMATION can be confirmed`,
    );
  }
  return new GatewayError('MANDATE_NOT_ACTIVE', `mandate ${id} is ${status}`);
}

export type ChargeStatus = MovementStatus;
export const CHARGE_STATUSES = MOVEMENT_STATUSES;
export const FINAL_CHARGE_STATUSES = FINAL_MOVEMENT_STATUSES;
export const CHARGE_REACHED_AT = MOVEMENT_REACHED_AT;

export type ChargeTrigger = 'created' | EngineTrigger;

export type ChargeEventKind = 'mandate.charge.completed' | 'mandate.charge.failed';

export type ChargeTransition = Transition<ChargeStatus, ChargeTrigger, ChargeEventKind | null>;

/**
 * The one table of a charge's moves: the engine's, as for a session (engineMovementTransitions).
 * The merchant sees SETTLEMENT_PENDING as PROCESSING (contract: PROCESSING, COMPLETED, FAILED).
 */
export const CHARGE_TRANSITIONS: readonly ChargeTransition[] = engineMovementTransitions('created', {
  completed: 'mandate.charge.completed',
  failed: 'mandate.charge.failed',
});

export const chargeTransitionFor = transitionLookup(CHARGE_TRANSITIONS);

/** What the merchant sees: the rail's wait is part of PROCESSING. */
export const publicChargeStatus = publicMovementStatus;
