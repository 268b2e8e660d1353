/**
 * Every event kind a merchant's endpoints can get (payment, refund and mandate events): what an
 * endpoint's enabled_events is checked against. A new kind of webhook event is added here too.
 */
export const MERCHANT_EVENT_KINDS = [
  'payment.initiated',
  'payment.processing',
  'payment.completed',
  'payment.failed',
  'payment.expired',
  'refund.completed',
  'refund.failed',
  'mandate.activated',
  'mandate.cancelled',
  'mandate.charge.completed',
  'mandate.charge.failed',
] as const;

/** Every event kind a TPP's endpoints can get (Open Banking events). */
export const TPP_EVENT_KINDS = [
  'consent.granted',
  'consent.revoked',
  'consent.expired',
  'payment_order.processing',
  'payment_order.pending_sca',
  'payment_order.completed',
  'payment_order.failed',
  'payment_order.rejected',
  'vrp_consent.granted',
  'vrp_consent.revoked',
  'vrp_consent.expired',
  'vrp_payment.completed',
  'vrp_payment.failed',
] as const;

/**
 * Every event kind an operator's or a bank's endpoints can get: a bank's net debit position
 * crossing an alert threshold or reaching its cap (net-debit.positions.ts writes one event for the
 * bank and one for the operator per crossing). Neither is ever a merchant's or a TPP's.
 */
export const LIQUIDITY_EVENT_KINDS = ['liquidity.threshold_reached', 'liquidity.cap_reached'] as const;

/** Endpoints an audience may have besides its primary one (each event fans out to every one of them). */
export const MAX_ENDPOINTS = 16;

/** All of an audience's events, as an endpoint's filter says it. */
export const ALL_EVENTS = '*';

/** The primary endpoint of an audience: its webhook_url (and a session's own URL), with the audience's secret. */
export const primaryEndpointId = (audienceId: string): string => `we_${audienceId}`;

/**
 * Whether an endpoint id names an audience's primary endpoint (we_mer_… or we_tpp_…) rather than a
 * row of its own. The operator and banks have no primary endpoint (no webhook_url): rows only.
 */
export const isPrimaryEndpointId = (id: string): boolean => /^we_(mer|tpp)_/.test(id);
