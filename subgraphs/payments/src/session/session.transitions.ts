import { GatewayError, transitionLookup, type Transition } from '@gateway/kernel';

export const SESSION_STATUSES = [
  'PENDING',
  'PROCESSING',
  'SETTLEMENT_PENDING',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Nothing moves a session out of these. */
export const FINAL_STATUSES: ReadonlySet<SessionStatus> = new Set(['COMPLETED', 'FAILED', 'EXPIRED']);

export type SessionTrigger =
  | 'created'
  | 'otp_accepted'
  | 'otp_failed_too_often'
  | 'ttl_elapsed'
  | 'ended_by_merchant'
  | 'internal_credit_booked'
  | 'cross_bank_debit_booked'
  | 'credit_confirmed'
  | 'credit_evidenced'
  | 'core_failure';

export type PaymentEventKind =
  'payment.initiated' | 'payment.processing' | 'payment.completed' | 'payment.failed' | 'payment.expired';

/** Every move writes its event to the outbox with it. */
export type SessionTransition = Transition<SessionStatus, SessionTrigger, PaymentEventKind>;

/**
 * The one table of session moves (spec "States and transitions", payment session). A move that
 * is not a row here is refused. SETTLEMENT_PENDING has no event kind of its own in the spec: it
 * is reported as payment.processing with status SETTLEMENT_PENDING.
 */
export const SESSION_TRANSITIONS: readonly SessionTransition[] = [
  { from: null, trigger: 'created', to: 'PENDING', event: 'payment.initiated' },
  { from: 'PENDING', trigger: 'otp_accepted', to: 'PROCESSING', event: 'payment.processing' },
  { from: 'PENDING', trigger: 'otp_failed_too_often', to: 'FAILED', event: 'payment.failed' },
  // Only through sessionExpiryDue (session.moves.ts): the TTL ran out and no OTP that arrived before it is still being checked.
  { from: 'PENDING', trigger: 'ttl_elapsed', to: 'EXPIRED', event: 'payment.expired' },
  // POST /payments/sessions/{id}/expire: the merchant no longer wants it paid (an order cancelled before checkout).
  { from: 'PENDING', trigger: 'ended_by_merchant', to: 'EXPIRED', event: 'payment.expired' },
  { from: 'PROCESSING', trigger: 'internal_credit_booked', to: 'COMPLETED', event: 'payment.completed' },
  { from: 'PROCESSING', trigger: 'cross_bank_debit_booked', to: 'SETTLEMENT_PENDING', event: 'payment.processing' },
  { from: 'PROCESSING', trigger: 'core_failure', to: 'FAILED', event: 'payment.failed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'credit_confirmed', to: 'COMPLETED', event: 'payment.completed' },
  // The creditor bank never confirmed a credit it booked (engine setting confirmGiveUpAfterMs).
  { from: 'SETTLEMENT_PENDING', trigger: 'credit_evidenced', to: 'COMPLETED', event: 'payment.completed' },
  { from: 'SETTLEMENT_PENDING', trigger: 'core_failure', to: 'FAILED', event: 'payment.failed' },
];

export const transitionFor = transitionLookup(SESSION_TRANSITIONS);

/**
 * Why a session in `status` cannot take `trigger`, in the spec's words for what a client can
 * cause (API-CONTRACT, checkout authorize): an expired session is SESSION_EXPIRED, a completed one
 * SESSION_ALREADY_COMPLETED, a failed one SESSION_FAILED, and one whose payment is under way
 * SESSION_IN_PROGRESS (it is not final: the payer can still learn how it ends).
 */
export function refusal(sessionId: string, status: SessionStatus, trigger: SessionTrigger): GatewayError {
  if (status === 'EXPIRED') return new GatewayError('SESSION_EXPIRED', `session ${sessionId} expired`);
  if (status === 'COMPLETED')
    return new GatewayError('SESSION_ALREADY_COMPLETED', `session ${sessionId} is COMPLETED and cannot be modified`);
  if (status === 'FAILED')
    return new GatewayError('SESSION_FAILED', `session ${sessionId} has FAILED and cannot be modified`);
  return new GatewayError(
    'SESSION_IN_PROGRESS',
    `session ${sessionId} is ${status}: ${trigger} is not possible now (a payment is already under way)`,
  );
}

/** Which timestamp column records reaching a status. */
export const REACHED_AT = {
  PENDING: 'createdAt',
  PROCESSING: 'processingAt',
  SETTLEMENT_PENDING: 'settlementPendingAt',
  COMPLETED: 'completedAt',
  FAILED: 'failedAt',
  EXPIRED: 'expiredAt',
} as const satisfies Record<SessionStatus, string>;
