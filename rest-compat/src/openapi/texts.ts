import { TEST_OTP, TEST_PAYERS } from '@gateway/bank-sandbox';
import { ERROR_CODES } from '@gateway/kernel';

/** The prose of the OpenAPI document (Markdown, as the /docs renderer shows it). */

/**
 * One line per group of routes (the `tag` of each route in routes/*.ts); a tag without one fails
 * the build of the document. Their order here is the order of the docs' sidebar: what a merchant
 * integrates first (Payments), then Open Banking, then the operator's and the banks' routes.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Payments: 'Payment sessions a merchant creates and follows: create, read, list.',
  Checkout: 'What the payer uses: the checkout page, its status, and the authorization with an OTP from their bank.',
  Refunds:
    "Refunds of completed payment sessions, full or partial, from the merchant's settlement account to the payer, through the payment engine; listed per session or across all the merchant's sessions (GET /refunds).",
  Mandates:
    'Recurring mandates: a merchant asks, the customer confirms once, then the merchant charges each period within the limit.',
  'Mandates: customer': 'The confirmation page of a mandate and its form post, for the customer.',
  Webhooks:
    "A merchant's or TPP's webhook endpoints (each with its own secret and event filter; the webhook_url is the primary one), its events of the last 30 days, and their deliveries: list them, retry one, replay a range to an endpoint.",
  Reports:
    "CSV exports of the merchant's sessions and refunds over a date range, streamed whatever their size (the daily summary is GraphQL's dailySummary).",
  Merchants:
    'Merchants registered by the operator: API keys (mk_test_ / mk_live_), webhook URL and secret, settlement IBAN.',
  'Open Banking':
    'Third-party providers (TPPs): consents, the OAuth token endpoint (PKCE), account information and payment orders, with FAPI headers.',
  'Open Banking: customer':
    'Pages and calls a bank customer makes for Open Banking: approving a consent, strong customer authentication of a payment order, revoking.',
  'Identity registry':
    'Aliases (handle@bank_handle) and phone numbers that resolve to an IBAN at a participating bank.',
  Banks:
    'Participating banks: registration by the operator, their settings, capabilities and keys. A bank acts with its bank key (X-Service-Bank-Key).',
  'Bank callbacks':
    'Calls a bank core makes back to the gateway (X-Service-Internal-Key): confirmation of a rail credit.',
  Settlement: 'Net settlement between banks: cycles, positions and their settlement.',
  Operations: 'For the operator: payments that need a person to look at them, and the audit log of who changed what.',
};

/**
 * Rate limits and what a GraphQL document costs (issue 13: aliases must not multiply a limit).
 * The router enforces these (router/src/rate-limit.ts, server.ts); the text is kept beside them.
 */
const LIMITS = `## Limits

Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds until the window resets); a refusal is 429 \`RATE_LIMITED\` with \`Retry-After\`. Operators may set other limits. A client IP is an IPv4 address, or the /64 network of an IPv6 address (an IPv4-mapped IPv6 address counts as its IPv4).

| Limit class | Default per minute | Counted per | REST | GraphQL root fields |
|---|---|---|---|---|
| \`session_create\` | 100 | merchant | POST /payments/sessions | \`createPaymentSession\` |
| \`identity_resolve\` | 600 | client IP | GET /v1/identity/resolve | \`resolveAlias\` (alias, phone or iban), \`alias(handle)\` |
| \`ob_token\` | 30 | TPP (client IP when unknown) | POST /ob/token | \`exchangeAuthorizationCode\`, \`refreshAccessToken\` (one per document) |
| \`read\` | 300 | credential (client IP when public) | other GET endpoints | every other query field |
| \`write\` | 300 | credential (client IP when public) | other writes | every other mutation field |

**GraphQL costs what the same REST calls would.** A document spends one point of a field's class for each root field it selects: every alias counts, and so do root fields inside fragments (\`{ a: resolveAlias(phone: "…") { iban } b: resolveAlias(phone: "…") { iban } }\` costs 2 points of \`identity_resolve\`). A root field given a list of keys costs one point per key (no field takes one today). A document asking more points than are left is refused whole with 429 (nothing runs, nothing is spent); the headers show the class closest to its limit after the points are spent. A subscription costs one \`read\` point when it starts.

Document caps, refused with 400 \`VALIDATION_ERROR\`: at most 30 aliases, 5,000 tokens, 50 directives, depth 12, 500 field selections and a static cost of 5,000 (objects 2, scalars 1, ×1.5 per level). In production, introspection is off and error messages carry no field suggestions.`;

/** Test mode and its test payers (API-CONTRACT "Test mode"); the list is the test bank's own (packages/bank-sandbox). */
const TEST_MODE = `## Test mode

A merchant (and a TPP) is test or live, fixed at registration: its key says so (\`mk_test_\` or \`mk_live_\`). Everything a test credential creates is a test object (\`livemode: false\` on every record and webhook envelope): its money moves only at test cores (a bank's registered sandbox core, else the gateway's built-in test bank for that bank), never at a bank's live core, and its interbank obligations settle only in test cycles (\`POST /settlement/cycles\` with \`{"mode": "test"}\`). A test credential never sees a live object, nor a live one a test object (404). Test clocks move test mandates only.

Test payers, like test cards: pay as \`<name>@<bank_handle>\` at any registered bank, with OTP \`${TEST_OTP}\` unless said otherwise. They resolve in test mode only. Real customers' aliases and IBANs work in test mode too (OTP \`${TEST_OTP}\` at the test bank), and their test-mode money moves in the test bank, never in their accounts.

| Payer | Outcome |
|---|---|
${TEST_PAYERS.map((payer) => `| \`${payer.name}@<bank>\` | ${payer.outcome.replace(/\|/g, '\\|')} |`).join('\n')}`;

/** Operator controls (API-CONTRACT): what suspending a participant stops, and what it never stops. */
const SUSPENSION = `## Suspension

An operator can suspend a bank, a merchant or a TPP (\`POST /banks/{handle}/suspend\`, \`/merchants/{id}/suspend\`, \`/ob/tpps/{id}/suspend\`; \`…/resume\` undoes it; both idempotent). From the moment it answers, the participant's credentials are refused with 403: \`MERCHANT_SUSPENDED\` (API keys and dashboard sessions), \`BANK_SUSPENDED\` (the bank key), \`TPP_SUSPENDED\` (the tpk_ token and every authorization code, access and refresh token of its consents). Nothing is revoked: on resume they work again.

A suspended bank takes part in no new session, consent, payment order, mandate, charge or refund, as the payer's or the payee's bank (422 \`BANK_NOT_PARTICIPATING\`, within a second). A suspended merchant's open sessions cannot be paid (403 \`MERCHANT_SUSPENDED\` at checkout; they stay PENDING); a suspended TPP's consents cannot be approved nor its payment orders authorised (403 \`TPP_SUSPENDED\`). A mandate charge refused this way charges nothing: the period can be charged once the bank is resumed.

Work already in flight always finishes: a payment that was PROCESSING completes (the bank core's callbacks keep working), and settlement still pays a suspended bank's positions.`;

const ERRORS = `## Errors

Every error has the body \`{"error": {"code", "message", "detail", "request_id"}}\`; the HTTP status follows from the code, and \`request_id\` is the X-Request-Id header.

| Code | HTTP status | Meaning |
|---|---|---|
${Object.entries(ERROR_CODES)
  .sort(([, a], [, b]) => a.status - b.status)
  .map(([code, { status, message }]) => `| \`${code}\` | ${status} | ${message.replace(/\|/g, '\\|')} |`)
  .join('\n')}`;

export const API_DESCRIPTION = `The REST API of the payment gateway and Open Banking service, served by rest-compat on top of the federated GraphQL API (also at [/graphql](/graphql), with GraphiQL for a browser outside production).

Fields are snake_case. Unknown fields and query parameters are refused with 400 VALIDATION_ERROR; bodies over 1 MiB get 413. Every response carries X-Request-Id, and responses from the API carry X-RateLimit-* headers. Creating POSTs take an optional \`Idempotency-Key\` header.

Machine-readable: [/openapi.json](/openapi.json). What the gateway sends a bank core and which answers it accepts: [/openapi/bank-core.json](/openapi/bank-core.json).

${TEST_MODE}

${LIMITS}

${SUSPENSION}

${ERRORS}`;
