import { transitionLookup, type Transition } from '@gateway/kernel';

export const VRP_PAYMENT_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type VrpPaymentStatus = (typeof VRP_PAYMENT_STATUSES)[number];

export type VrpPaymentTrigger = 'accepted' | 'movement_completed' | 'movement_failed';

/** Webhooks to the TPP (contract "Variable recurring payments"). */
export type VrpPaymentEventKind = 'vrp_payment.completed' | 'vrp_payment.failed';

export type VrpPaymentTransition = Transition<VrpPaymentStatus, VrpPaymentTrigger, VrpPaymentEventKind | null>;

/**
 * The one table of a VRP payment: accepted within its consent's limits it is PROCESSING (and the
 * engine is asked to move it, no SCA: the consent is the customer's authorisation), then the
 * engine's answer ends it. FAILED frees its share of the limits.
 */
export const VRP_PAYMENT_TRANSITIONS: readonly VrpPaymentTransition[] = [
  { from: null, trigger: 'accepted', to: 'PROCESSING', event: null },
  { from: 'PROCESSING', trigger: 'movement_completed', to: 'COMPLETED', event: 'vrp_payment.completed' },
  { from: 'PROCESSING', trigger: 'movement_failed', to: 'FAILED', event: 'vrp_payment.failed' },
];

export const vrpPaymentTransitionFor = transitionLookup(VRP_PAYMENT_TRANSITIONS);

export const VRP_PAYMENT_REACHED_AT = {
  PROCESSING: 'createdAt',
  COMPLETED: 'completedAt',
  FAILED: 'failedAt',
} as const satisfies Record<VrpPaymentStatus, string>;
