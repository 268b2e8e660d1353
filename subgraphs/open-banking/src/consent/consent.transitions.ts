import { GatewayError, transitionLookup, type Transition } from '@gateway/kernel';

export const CONSENT_STATUSES = ['AWAITING_AUTHORISATION', 'AUTHORISED', 'REJECTED', 'REVOKED', 'EXPIRED'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/** Nothing moves a consent out of these. */
export const FINAL_CONSENT_STATUSES: ReadonlySet<ConsentStatus> = new Set(['REJECTED', 'REVOKED', 'EXPIRED']);

export type ConsentTrigger = 'created' | 'customer_approved' | 'customer_rejected' | 'revoked' | 'expiry_reached';

/**
 * `consent.*`: the spec's Open Banking events, delivered to the TPP's webhook_url.
 * `internal.consent.*`: the platform's own, never a webhook (the spec names no event for the
 * move); the router's consentUpdated follows it so a live view sees REJECTED and ends there.
 * Kept out of the `consent.` namespace so no consumer of `consent.*` has to filter it out.
 */
export type ConsentEventKind = 'consent.granted' | 'consent.revoked' | 'consent.expired' | 'internal.consent.rejected';

/** The event is written to the outbox with the move; null: nobody needs to hear of it. */
export type ConsentTransition = Transition<ConsentStatus, ConsentTrigger, ConsentEventKind | null>;

/**
 * The one table of consent moves (spec "States and transitions", consent; contract "Open Banking
 * additions" for the status names). A move that is not a row here is refused. A consent the
 * customer never answered also expires, so a forgotten request does not stay open for ever; the
 * spec's consent.expired covers both. A request not yet answered can also be revoked (the TPP
 * abandons the flow, or the bank refuses it): its consent_url must die with it rather than stay
 * approvable until expiry, as UK Open Banking's DELETE of an AwaitingAuthorisation consent does.
 */
export const CONSENT_TRANSITIONS: readonly ConsentTransition[] = [
  { from: null, trigger: 'created', to: 'AWAITING_AUTHORISATION', event: null },
  { from: 'AWAITING_AUTHORISATION', trigger: 'customer_approved', to: 'AUTHORISED', event: 'consent.granted' },
  { from: 'AWAITING_AUTHORISATION', trigger: 'customer_rejected', to: 'REJECTED', event: 'internal.consent.rejected' },
  { from: 'AWAITING_AUTHORISATION', trigger: 'expiry_reached', to: 'EXPIRED', event: 'consent.expired' },
  { from: 'AWAITING_AUTHORISATION', trigger: 'revoked', to: 'REVOKED', event: 'consent.revoked' },
  { from: 'AUTHORISED', trigger: 'revoked', to: 'REVOKED', event: 'consent.revoked' },
  { from: 'AUTHORISED', trigger: 'expiry_reached', to: 'EXPIRED', event: 'consent.expired' },
];

export const consentTransitionFor = transitionLookup(CONSENT_TRANSITIONS);

/** Why a consent in `status` cannot take `trigger`, in the spec's words where it has them. */
export function consentRefusal(consentId: string, status: ConsentStatus, trigger: ConsentTrigger): GatewayError {
  if (status === 'REVOKED') return new GatewayError('CONSENT_REVOKED', `consent ${consentId} is revoked`);
  if (status === 'EXPIRED') return new GatewayError('CONSENT_EXPIRED', `consent ${consentId} has expired`);
  return new GatewayError('VALIDATION_ERROR', `consent ${consentId} is ${status}: ${trigger} is not possible now`);
}

/** Which timestamp column records reaching a status. */
export const CONSENT_REACHED_AT = {
  AWAITING_AUTHORISATION: 'createdAt',
  AUTHORISED: 'authorisedAt',
  REJECTED: 'rejectedAt',
  REVOKED: 'revokedAt',
  EXPIRED: 'expiredAt',
} as const satisfies Record<ConsentStatus, string>;
