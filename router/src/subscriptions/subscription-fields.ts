import type { PlatformEvent } from '@gateway/events';
import { GatewayError, type PrincipalKind } from '@gateway/kernel';

/**
 * One subscription field of the supergraph, as the router serves it: the query that reads the
 * same object (run once for the current state, then once per event), the bus events that move
 * it, the order its statuses are reached in, and who may follow it. Every field goes through the
 * same code path (planSubscription, SubscriptionHub, ResultStream); adding one is adding a row.
 */
export interface SubscriptionFieldDeclaration {
  /** Query field that reads the object by the same argument (`paymentSession(id:)`). */
  queryField: string;
  /**
   * The argument naming the followed aggregate; the query field takes it too. Absent for a view
   * of no one object (the settlement cycles): the field's name stands for it.
   */
  idArgument?: string;
  /** `aggregateType` of the events that move the object. */
  aggregateType: string;
  /** Topic patterns of those events on the bus. */
  eventPatterns: readonly string[];
  /**
   * Statuses in the order they are reached; statuses of one rank are alternatives, the last rank
   * is final (the stream completes there). A status only moves forward, so a subscriber never
   * needs one that is not later than the last it got.
   */
  statusOrder: ReadonlyArray<readonly string[]>;
  /** Credential kinds that may subscribe; the subgraph's query still decides which objects. */
  subscribers: readonly PrincipalKind[];
  /**
   * What any other credential gets: the answer the query gives a stranger for an unknown or
   * someone else's object (same code and detail), so a refusal says nothing about whether the
   * object exists.
   */
  refusal(id: string): GatewayError;
  /** The status an event moved the object to; undefined: the query's answer is used. */
  eventStatus(event: PlatformEvent): string | undefined;
  /**
   * A view rather than one aggregate's lifecycle (a bank's positions move with every cross-bank
   * movement, whatever its aggregate): any event of `eventPatterns` re-reads it (coalesced: one
   * read waiting at most), an answer equal to the last one is not sent, no status is tracked
   * (`statusOrder` empty) and the stream never completes.
   */
  view?: boolean;
}

/** The status the publishing subgraph wrote into the event's data (payments and open-banking do). */
const statusInData = (event: PlatformEvent): string | undefined =>
  typeof event.data.status === 'string' ? event.data.status : undefined;

/**
 * data.status, or else the status the kind names (`payment_order.pending_sca` -> PENDING_SCA): the
 * spec names payment order events by outcome and does not show their data.
 */
const statusInDataOrKind =
  (statuses: ReadonlyArray<readonly string[]>) =>
  (event: PlatformEvent): string | undefined => {
    const fromKind = event.kind.split('.').at(-1)?.toUpperCase();
    return statusInData(event) ?? (fromKind && statuses.some((rank) => rank.includes(fromKind)) ? fromKind : undefined);
  };

const PAYMENT_ORDER_STATUSES = [['PENDING_SCA'], ['PROCESSING'], ['COMPLETED', 'FAILED', 'REJECTED']] as const;

export const SUBSCRIPTION_FIELDS = {
  paymentSessionUpdated: {
    queryField: 'paymentSession',
    idArgument: 'id',
    aggregateType: 'payment_session',
    eventPatterns: ['payment.#'],
    statusOrder: [['PENDING'], ['PROCESSING'], ['SETTLEMENT_PENDING'], ['COMPLETED', 'FAILED', 'EXPIRED']],
    // As paymentSession(id): the merchant's key, the checkout's sst_ token, an operator.
    subscribers: ['merchant', 'session', 'admin'],
    refusal: (id) => new GatewayError('SESSION_NOT_FOUND', `no payment session ${id}`),
    eventStatus: statusInData,
  },
  consentUpdated: {
    queryField: 'consent',
    idArgument: 'id',
    aggregateType: 'consent',
    // consent.granted/.revoked/.expired, and internal.consent.rejected: REJECTED has no webhook
    // event in the spec, yet a subscriber must see it (and the stream must end there).
    eventPatterns: ['consent.*', 'internal.consent.*'],
    statusOrder: [['AWAITING_AUTHORISATION'], ['AUTHORISED'], ['REJECTED', 'REVOKED', 'EXPIRED']],
    // The owning TPP only (contract: "for the TPP"); consent(id) also answers the consent's own
    // access token, which is a data-call credential, not a TPP's live view.
    subscribers: ['tpp'],
    refusal: (id) => new GatewayError('CONSENT_NOT_FOUND', `no consent ${id}`),
    eventStatus: statusInData,
  },
  paymentOrderUpdated: {
    queryField: 'paymentOrder',
    idArgument: 'id',
    aggregateType: 'payment_order',
    eventPatterns: ['payment_order.*'],
    statusOrder: PAYMENT_ORDER_STATUSES,
    subscribers: ['tpp'],
    // What paymentOrder(id) answers a stranger: the same as an unknown id.
    refusal: (id) => new GatewayError('PAYMENT_ORDER_NOT_FOUND', `no payment order ${id}`),
    eventStatus: statusInDataOrKind(PAYMENT_ORDER_STATUSES),
  },
  mandateUpdated: {
    queryField: 'mandate',
    idArgument: 'id',
    aggregateType: 'mandate',
    // mandate.activated/.cancelled, internal.mandate.failed (no webhook event in the contract), and
    // the charges' events (mandate.charge.*), which share the mandate as aggregate.
    eventPatterns: ['mandate.#', 'internal.mandate.*'],
    statusOrder: [['PENDING_CONFIRMATION'], ['ACTIVE'], ['CANCELLED', 'FAILED']],
    subscribers: ['merchant', 'admin'],
    refusal: (id) => new GatewayError('MANDATE_NOT_FOUND', `no mandate ${id}`),
    // The mandate's own status (a charge event carries the charge's as `status`): the query answers those.
    eventStatus: (event) => (typeof event.data.mandate_status === 'string' ? event.data.mandate_status : undefined),
  },
  bankPositionsUpdated: {
    queryField: 'bankPositions',
    idArgument: 'handle',
    aggregateType: 'bank_position',
    // What can move a position or a cap: the movements' events (sessions, charges, payment orders
    // and VRP payments, refunds), the liquidity alerts and the cap changes (net-debit.positions.ts).
    eventPatterns: [
      'payment.#',
      'mandate.#',
      'payment_order.*',
      'refund.*',
      'movement.*',
      'liquidity.*',
      'internal.net_debit_cap.*',
      // A cycle's close takes its obligations out of the positions.
      'internal.settlement_cycle.*',
    ],
    statusOrder: [],
    view: true,
    // The operator console's liquidity view (issue 50): admin only, as the caps are.
    subscribers: ['admin'],
    refusal: () => new GatewayError('FORBIDDEN', 'bankPositionsUpdated: for an admin credential only'),
    eventStatus: () => undefined,
  },
  settlementCyclesUpdated: {
    queryField: 'settlementCycles',
    aggregateType: 'settlement_cycle',
    // A cycle closed with its positions, and each position's core result (settlement.repository.ts).
    eventPatterns: ['internal.settlement_cycle.*'],
    statusOrder: [],
    view: true,
    subscribers: ['admin'],
    refusal: () => new GatewayError('FORBIDDEN', 'settlementCyclesUpdated: for an admin credential only'),
    eventStatus: () => undefined,
  },
} as const satisfies Record<string, SubscriptionFieldDeclaration>;

export type SubscriptionField = keyof typeof SUBSCRIPTION_FIELDS;

export const isSubscriptionField = (name: string): name is SubscriptionField =>
  Object.hasOwn(SUBSCRIPTION_FIELDS, name);

/** Every bus pattern some field follows, once each (one fan-out subscription per pattern). */
export const subscribedPatterns = (
  fields: Record<string, Pick<SubscriptionFieldDeclaration, 'eventPatterns'>> = SUBSCRIPTION_FIELDS,
): string[] => [...new Set(Object.values(fields).flatMap((field) => field.eventPatterns))];
