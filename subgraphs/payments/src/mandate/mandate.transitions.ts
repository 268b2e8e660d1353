import { GatewayError } from '@gateway/kernel';
import type { EngineTrigger } from '../movement/movement';

export const MANDATE_STATUSES = ['PENDING_CONFIRMATION', 'ACTIVE', 'CANCELLED', 'FAILED'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

export const FINAL_MANDATE_STATUSES: ReadonlySet<MandateStatus> = new Set(['CANCELLED', 'FAILED']);

export type MandateTrigger = 'created' | 'otp_accepted' | 'otp_failed_too_often' | 'cancelled' | 'revoked';

/**
 * Events of a mandate (audience: its merchant). A mandate that FAILED confirmation has no webhook
 * event in the contract; its internal event still moves a mandateUpdated subscriber to FAILED.
 */
export type MandateEventKind = 'mandate.activated' | 'mandate.cancelled' | 'internal.mandate.failed';

export interface MandateTransition {
  from: MandateStatus | null;
  trigger: MandateTrigger;
  to: MandateStatus;
  event: MandateEventKind | null;
}

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

export const mandateTransitionFor = (from: MandateStatus | null, trigger: MandateTrigger): MandateTransition | undefined =>
  MANDATE_TRANSITIONS.find((row) => row.from === from && row.trigger === trigger);

export const MANDATE_REACHED_AT = {
  PENDING_CONFIRMATION: 'createdAt',
  ACTIVE: 'confirmedAt',
  CANCELLED: 'cancelledAt',
  FAILED: 'failedAt',
} as const satisfies Record<MandateStatus, string>;

/** Why a mandate in `status` cannot take `trigger`, as a client reads it. */
export function mandateRefusal(id: string, status: MandateStatus, trigger: MandateTrigger): GatewayError {
  if (trigger === 'otp_accepted' || trigger === 'otp_failed_too_often') {
    return new GatewayError('MANDATE_NOT_PENDING_CONFIRMATION', `mandate ${id} is ${status}: only a mandate PENDING_CONFIRMATION can be confirmed`);
  }
  return new GatewayError('MANDATE_NOT_ACTIVE', `mandate ${id} is ${status}`);
}

export const CHARGE_STATUSES = ['PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

export const FINAL_CHARGE_STATUSES: ReadonlySet<ChargeStatus> = new Set(['COMPLETED', 'FAILED']);

export type ChargeTrigger = 'created' | EngineTrigger;

export type ChargeEventKind = 'mandate.charge.completed' | 'mandate.charge.failed';

export interface ChargeTransition {
  from: ChargeStatus | null;
  trigger: ChargeTrigger;
  to: ChargeStatus;
  event: ChargeEventKind | null;
}

/**
 * The one table of a charge's moves: the engine's, as for a session (same bank: COMPLETED when the
 * credit is booked; cross bank: SETTLEMENT_PENDING after the debit, COMPLETED on the creditor
 * bank's confirmation or the evidence of the booked credit). The merchant sees SETTLEMENT_PENDING
 * as PROCESSING (contract: PROCESSING, COMPLETED, FAILED).
 */
export const CHARGE_TRANSITIONS: readonly ChargeTransition[] = [
  { from: null, trigger: 'created', to: 'PROCESSING', event: null },
  { from: 'PROCESSING', trigger: 'internal_credit_booked', to: 'COMPLETED', event: 'mandate.charge.completed' },
  { from: 'PROCESSING', trigger: 'cross_bank_debit_booked', to: 'SETTLEMENT_PENDING', event: null },
  { from: 'PROCESSING', trigger: 'core_failure', to: 'FAILED', event: 'mandate.charge.failed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'credit_confirmed', to: 'COMPLETED', event: 'mandate.charge.completed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'credit_evidenced', to: 'COMPLETED', event: 'mandate.charge.completed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'core_failure', to: 'FAILED', event: 'mandate.charge.failed' },
];

export const chargeTransitionFor = (from: ChargeStatus | null, trigger: ChargeTrigger): ChargeTransition | undefined =>
  CHARGE_TRANSITIONS.find((row) => row.from === from && row.trigger === trigger);

export const CHARGE_REACHED_AT = {
  PROCESSING: 'createdAt',
  SETTLEMENT_PENDING: 'settlementPendingAt',
  COMPLETED: 'completedAt',
  FAILED: 'failedAt',
} as const satisfies Record<ChargeStatus, string>;

/** What the merchant sees: the rail's wait is part of PROCESSING. */
export const publicChargeStatus = (status: ChargeStatus): 'PROCESSING' | 'COMPLETED' | 'FAILED' => (status === 'SETTLEMENT_PENDING' ? 'PROCESSING' : status);
