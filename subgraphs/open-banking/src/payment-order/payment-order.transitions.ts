import { GatewayError, transitionLookup, type Transition } from '@gateway/kernel';

export const PAYMENT_ORDER_STATUSES = ['PENDING_SCA', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'] as const;
export type PaymentOrderStatus = (typeof PAYMENT_ORDER_STATUSES)[number];

/** Nothing moves an order out of these. */
export const FINAL_ORDER_STATUSES: ReadonlySet<PaymentOrderStatus> = new Set(['COMPLETED', 'FAILED', 'REJECTED']);

export type PaymentOrderTrigger =
  | 'created_exempt'
  | 'created_sca_required'
  | 'sca_passed'
  | 'sca_failed'
  | 'sca_expired'
  | 'movement_completed'
  | 'movement_failed'
  | 'movement_declined';

export type PaymentOrderEventKind =
  | 'payment_order.processing'
  | 'payment_order.pending_sca'
  | 'payment_order.completed'
  | 'payment_order.failed'
  | 'payment_order.rejected';

/** The event is written to the outbox (audience: the TPP) with the move. */
export interface PaymentOrderTransition extends Transition<
  PaymentOrderStatus,
  PaymentOrderTrigger,
  PaymentOrderEventKind
> {
  /** The move hands the money to the payments engine: movement.requested goes out with it. */
  requestsMovement: boolean;
}

/**
 * The one table of payment order moves (contract "Open Banking additions": PENDING_SCA,
 * PROCESSING, COMPLETED, FAILED, REJECTED). A move not in it is refused. An order at or below its
 * bank's sca_exemption_limit is PROCESSING from creation; above it it waits for SCA and no money
 * moves before sca_passed. The engine's outcome decides the end: completed, failed (funds, an
 * unknown or failed core outcome) or declined by a bank for another reason (REJECTED, spec
 * payment_order.rejected / PAYMENT_ORDER_REJECTED).
 */
export const PAYMENT_ORDER_TRANSITIONS: readonly PaymentOrderTransition[] = [
  {
    from: null,
    trigger: 'created_exempt',
    to: 'PROCESSING',
    event: 'payment_order.processing',
    requestsMovement: true,
  },
  {
    from: null,
    trigger: 'created_sca_required',
    to: 'PENDING_SCA',
    event: 'payment_order.pending_sca',
    requestsMovement: false,
  },
  {
    from: 'PENDING_SCA',
    trigger: 'sca_passed',
    to: 'PROCESSING',
    event: 'payment_order.processing',
    requestsMovement: true,
  },
  { from: 'PENDING_SCA', trigger: 'sca_failed', to: 'FAILED', event: 'payment_order.failed', requestsMovement: false },
  // Only through scaExpiryDue (payment-order.moves.ts): the deadline passed and no OTP that arrived before it is still being checked.
  { from: 'PENDING_SCA', trigger: 'sca_expired', to: 'FAILED', event: 'payment_order.failed', requestsMovement: false },
  {
    from: 'PROCESSING',
    trigger: 'movement_completed',
    to: 'COMPLETED',
    event: 'payment_order.completed',
    requestsMovement: false,
  },
  {
    from: 'PROCESSING',
    trigger: 'movement_failed',
    to: 'FAILED',
    event: 'payment_order.failed',
    requestsMovement: false,
  },
  {
    from: 'PROCESSING',
    trigger: 'movement_declined',
    to: 'REJECTED',
    event: 'payment_order.rejected',
    requestsMovement: false,
  },
];

export const orderTransitionFor = transitionLookup(PAYMENT_ORDER_TRANSITIONS);

export function orderRefusal(orderId: string, status: PaymentOrderStatus, trigger: PaymentOrderTrigger): GatewayError {
  return new GatewayError('VALIDATION_ERROR', `payment order ${orderId} is ${status}: ${trigger} is not possible now`);
}

/** Which timestamp column records reaching a status. */
export const ORDER_REACHED_AT = {
  PENDING_SCA: 'createdAt',
  PROCESSING: 'processingAt',
  COMPLETED: 'completedAt',
  FAILED: 'failedAt',
  REJECTED: 'rejectedAt',
} as const satisfies Record<PaymentOrderStatus, string>;
