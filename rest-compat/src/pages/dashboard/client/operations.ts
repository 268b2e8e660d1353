/** The GraphQL documents the dashboard sends, and the shapes it reads back. */

export interface Merchant {
  id: string;
  name: string;
  mode: string;
  webhookUrl: string | null;
}

export const CURRENT_MERCHANT = `query DashboardMerchant { currentMerchant { id name mode webhookUrl } }`;

const SESSION_FIELDS = `id status amount currency reference description destination { type value } createdAt updatedAt completedAt failedAt expiredAt expiresAt failureCode`;

export interface SessionRow {
  id: string;
  status: string;
  amount: number;
  currency: string;
  reference: string | null;
  description: string | null;
  destination: { type: string; value: string };
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  failedAt: string | null;
  expiredAt: string | null;
  expiresAt: string;
  failureCode: string | null;
}

export interface StatusChange {
  status: string;
  at: string;
  event: string;
  failureCode: string | null;
}

/** One pair of the merchant's metadata, in key order as the API gives them. */
export interface MetadataEntry {
  key: string;
  value: string;
}

export interface SessionDetail extends SessionRow {
  statusHistory: StatusChange[];
  metadata: MetadataEntry[];
  creditorIban: string;
  settlementType: string | null;
  checkoutUrl: string;
  redirectUrl: string | null;
  webhookUrl: string | null;
  creditorBank: { handle: string };
  debtorBank: { handle: string } | null;
}

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface Connection<T> {
  edges: Array<{ node: T }>;
  pageInfo: PageInfo;
}

/**
 * A list's document, with its filter argument only when one is applied: an unfiltered list asks
 * exactly what it asked before filters existed.
 */
const listDocument =
  (name: string, field: string, filterType: string, variables: string, args: string, selection: string) =>
  (filtered: boolean): string =>
    `query ${name}(${variables}${filtered ? `, $filter: ${filterType}` : ''}) {
  ${field}(${args}${filtered ? ', filter: $filter' : ''}) { edges { node { ${selection} } } pageInfo { hasNextPage endCursor } }
}`;

/** Whether a list's filter narrows it, and the variables that send it. */
export const hasFilter = (filter: Record<string, unknown>): boolean => Object.keys(filter).length > 0;
export const filterVariables = (filter: Record<string, unknown>): { filter?: Record<string, unknown> } =>
  hasFilter(filter) ? { filter } : {};

export const SESSIONS = listDocument(
  'DashboardSessions',
  'paymentSessions',
  'PaymentSessionFilter',
  '$first: Int, $after: String',
  'first: $first, after: $after',
  SESSION_FIELDS,
);

const DETAIL_FIELDS = `${SESSION_FIELDS} creditorIban settlementType checkoutUrl redirectUrl webhookUrl creditorBank { handle } debtorBank { handle } statusHistory { status at event failureCode } metadata { key value }`;

export const SESSION = `query DashboardSession($id: ID!) { paymentSession(id: $id) { ${DETAIL_FIELDS} } }`;

/** A row of the list, followed until final. */
export const SESSION_UPDATED = `subscription DashboardSessionUpdated($id: ID!) { paymentSessionUpdated(id: $id) { ${SESSION_FIELDS} } }`;

/** The open session, timeline included, followed until final. */
export const SESSION_DETAIL_UPDATED = `subscription DashboardSessionDetailUpdated($id: ID!) { paymentSessionUpdated(id: $id) { ${DETAIL_FIELDS} } }`;

export interface RefundRow {
  id: string;
  status: string;
  amount: number;
  currency: string;
  reason: string | null;
  reference: string | null;
  failureCode: string | null;
  createdAt: string;
  completedAt: string | null;
  failedAt: string | null;
}

const REFUND_FIELDS = `id status amount currency reason reference failureCode createdAt completedAt failedAt`;

export interface RefundListRow extends RefundRow {
  sessionId: string;
}

/** The merchant's refunds, newest first, under a RefundFilter. */
export const REFUNDS = listDocument(
  'DashboardRefunds',
  'refunds',
  'RefundFilter',
  '$first: Int, $after: String',
  'first: $first, after: $after',
  `${REFUND_FIELDS} sessionId`,
);

export const REFUND = `query DashboardRefund($id: ID!) { refund(id: $id) { ${REFUND_FIELDS} sessionId } }`;

/** A paid session's refunds (newest first) and how much of it they gave back. */
export const SESSION_REFUNDS = `query DashboardSessionRefunds($id: ID!, $first: Int) {
  paymentSession(id: $id) { id amount amountRefunded refunds(first: $first) { edges { node { ${REFUND_FIELDS} } } } }
}`;

export interface SessionRefunds {
  id: string;
  amount: number;
  amountRefunded: number;
  refunds: { edges: Array<{ node: RefundRow }> };
}

export const REFUND_SESSION = `mutation DashboardRefundSession($id: ID!, $input: RefundPaymentSessionInput) {
  refundPaymentSession(id: $id, input: $input) { ${REFUND_FIELDS} }
}`;

export interface WebhookAttempt {
  number: number;
  url: string | null;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  event: string;
  aggregateId: string;
  url: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  history: WebhookAttempt[];
}

export const DELIVERY_FIELDS = `id eventId event aggregateId url status attempts lastStatusCode lastError nextAttemptAt deliveredAt createdAt history { number url startedAt durationMs statusCode error }`;

export const DELIVERIES = listDocument(
  'DashboardDeliveries',
  'webhookDeliveries',
  'WebhookDeliveryFilter',
  '$first: Int!, $after: ID, $aggregateId: ID',
  'first: $first, after: $after, aggregateId: $aggregateId',
  DELIVERY_FIELDS,
);

export const RETRY_DELIVERY = `mutation DashboardRetryDelivery($id: ID!) { retryWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;

export const ROTATE_WEBHOOK_SECRET = `mutation DashboardRotateWebhookSecret($id: ID!) { rotateWebhookSecret(id: $id) { webhookSecret } }`;

export interface MandateRow {
  id: string;
  status: string;
  customerAlias: string;
  amount: number;
  currency: string;
  interval: string;
  description: string | null;
  startDate: string;
  nextChargeDate: string | null;
  createdAt: string;
  confirmedAt: string | null;
  cancelledAt: string | null;
  failedAt: string | null;
  revokedBy: string | null;
}

const MANDATE_FIELDS = `id status customerAlias amount currency interval description startDate nextChargeDate createdAt confirmedAt cancelledAt failedAt revokedBy`;

export const MANDATES = listDocument(
  'DashboardMandates',
  'mandates',
  'MandateFilter',
  '$first: Int, $after: String',
  'first: $first, after: $after',
  MANDATE_FIELDS,
);

export interface MandateCharge {
  id: string;
  status: string;
  amount: number;
  currency: string;
  reference: string;
  periodStart: string;
  settlementType: string;
  failureCode: string | null;
  failureDetail: string | null;
  createdAt: string;
  completedAt: string | null;
  failedAt: string | null;
}

export const MANDATE = `query DashboardMandate($id: ID!, $first: Int, $after: String) {
  mandate(id: $id) {
    ${MANDATE_FIELDS}
    charges(first: $first, after: $after) { edges { node { id status amount currency reference periodStart settlementType failureCode failureDetail createdAt completedAt failedAt } } pageInfo { hasNextPage endCursor } }
  }
}`;

/** The last days per currency (UTC days), for the home view's figures and charts. */
export const DAILY_SUMMARY = `query DashboardDailySummary($from: String!, $to: String!) {
  dailySummary(from: $from, to: $to) { date currency sessionsCreated paymentsCompleted paymentsFailed volume refundsCompleted refundedAmount failures { code count } }
}`;
