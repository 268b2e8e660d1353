/** The GraphQL documents of webhook endpoints and events, and the shapes the dashboard reads back. */
import { DELIVERY_FIELDS, type Connection, type WebhookDelivery } from './operations';

/**
 * The events a merchant's endpoint can subscribe to (API-CONTRACT, "Webhook events" and "Mandates");
 * none picked means every event ("*").
 */
export const MERCHANT_EVENTS = [
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

export interface WebhookEndpoint {
  id: string;
  url: string;
  enabledEvents: string[];
  description: string | null;
  status: 'ENABLED' | 'DISABLED';
  livemode: boolean;
  createdAt: string;
  primary: boolean;
}

const ENDPOINT_FIELDS = `id url enabledEvents description status livemode createdAt primary`;

export const WEBHOOK_ENDPOINTS = `query DashboardWebhookEndpoints($first: Int, $after: ID) {
  webhookEndpoints(first: $first, after: $after) { edges { node { ${ENDPOINT_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;

export const WEBHOOK_ENDPOINT = `query DashboardWebhookEndpoint($id: ID!) { webhookEndpoint(id: $id) { ${ENDPOINT_FIELDS} } }`;

export const CREATE_WEBHOOK_ENDPOINT = `mutation DashboardCreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { ${ENDPOINT_FIELDS} } secret }
}`;

export const UPDATE_WEBHOOK_ENDPOINT = `mutation DashboardUpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(id: $id, input: $input) { ${ENDPOINT_FIELDS} }
}`;

export const DELETE_WEBHOOK_ENDPOINT = `mutation DashboardDeleteWebhookEndpoint($id: ID!) { deleteWebhookEndpoint(id: $id) }`;

export const REPLAY_WEBHOOK_ENDPOINT = `mutation DashboardReplayWebhookEndpoint($id: ID!, $from: String!, $to: String!, $onlyFailed: Boolean!) {
  replayWebhookEndpoint(id: $id, from: $from, to: $to, onlyFailed: $onlyFailed) { replayed events skippedDelivered skippedPending reason }
}`;

export interface EventRow {
  id: string;
  type: string;
  createdAt: string;
  livemode: boolean;
  sequence: number;
  aggregateId: string;
}

export interface EventDetail extends EventRow {
  /** The envelope's data as JSON text. */
  data: string;
  deliveries: Array<WebhookDelivery & { endpointId: string | null }>;
}

const EVENT_FIELDS = `id type createdAt livemode sequence aggregateId`;

export const EVENTS = `query DashboardEvents($type: String, $from: String, $to: String, $first: Int, $after: ID) {
  events(type: $type, from: $from, to: $to, first: $first, after: $after) { edges { node { ${EVENT_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;

export const EVENT = `query DashboardEvent($id: ID!) {
  event(id: $id) { ${EVENT_FIELDS} data deliveries { ${DELIVERY_FIELDS} endpointId } }
}`;

export type EndpointConnection = Connection<WebhookEndpoint>;
export type EventConnection = Connection<EventRow>;
