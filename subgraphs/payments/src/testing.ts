/**
 * Test helpers, published as `@gateway/subgraph-payments/testing` (not through index.ts): the
 * writers of the leased rows, so a takeover test can stand in for a frozen process by stopping
 * one owner's lease renewals (what no test can do to one of two platforms in one process) and
 * watch that owner's late writes be refused.
 */
export { deliveries, type ClaimedDelivery } from './webhook/delivery.repository';
export { settlementRepository, type PositionOwner } from './settlement/settlement.repository';
/** The webhook signer itself, so that receivers' verifiers (packages/sdk) are tested against what the platform sends. */
export { serializeEnvelope, signedHeaders, type WebhookEnvelope } from './webhook/signature';
/** The webhook sender as the dispatcher uses it, for the payment floor's bare webhook POSTs (bench/payment-floor.ts). */
export { createWebhookSender } from './webhook/webhook-sender';
/** The merchant event kinds, which the dashboard's bundle keeps a copy of (its browser test compares them). */
export { MERCHANT_EVENT_KINDS } from './webhook/event-kinds';
