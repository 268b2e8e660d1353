import { z } from 'zod';
import { exampleOf } from './examples';
import { WEBHOOK_EVENTS, webhookEnvelopeSchema, type WebhookEventDefinition } from './webhook-events';

type JsonSchema = Record<string, any>;

/** The tag of the webhook events in the docs. */
export const EVENTS_TAG = {
  name: 'Events',
  description:
    "Webhooks the gateway sends: merchants get payment, refund and mandate events, TPPs consent and payment order events, the operator and banks the liquidity events of net debit caps, each a POST of the envelope {id, event, created_at, livemode, sequence, data} to the webhook URL, signed with the audience's webhook secret (Standard Webhooks and X-Service-Signature). Answer 2xx within 10 seconds; anything else is retried with backoff for at least 24 hours.",
};

/** The signature headers of every delivery (API-CONTRACT "Webhook headers"), as parameters of the webhook operations. */
export const WEBHOOK_HEADER_PARAMETERS: Record<string, JsonSchema> = {
  'webhook-id': {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the event id (evt_…), the same on every attempt.',
    schema: { type: 'string' },
  },
  'webhook-timestamp': {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: when this attempt was signed, in Unix seconds. Refuse one too far from now.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'webhook-signature': {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">, keyed with the base64-decoded text after whsec_ of the webhook secret.',
    schema: { type: 'string', pattern: '^v1,' },
  },
  'X-Service-Signature': {
    name: 'X-Service-Signature',
    in: 'header',
    required: true,
    description:
      'sha256=<lowercase hex HMAC-SHA256 of the raw body>, keyed with the webhook secret. Compare in constant time; refuse a mismatch with 401.',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
  'X-Service-Event-Id': {
    name: 'X-Service-Event-Id',
    in: 'header',
    required: true,
    description: 'The event id (evt_…), the same on every attempt.',
    schema: { type: 'string' },
  },
  'X-Service-Timestamp': {
    name: 'X-Service-Timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed, ISO 8601 UTC (not covered by X-Service-Signature).',
    schema: { type: 'string' },
  },
};

/** Where each audience's events go. */
const SENT_TO: Record<WebhookEventDefinition['audience'], string> = {
  merchant: "Sent to the merchant's (or the session's own) webhook URL and its endpoints.",
  tpp: "Sent to the TPP's webhook URL and its endpoints.",
  operator_and_bank:
    "Sent to the operator's endpoints and to the bank's (POST /webhooks/endpoints with an admin key or the bank's key), each as an event of its own (its own id), signed with the endpoint's secret; a suspended bank still gets them.",
};

/** payment_order.pending_sca -> PaymentOrderPendingScaEvent: the component schema of an event's envelope. */
export const eventSchemaName = (event: string): string =>
  `${event
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;

const operationId = (event: string): string => {
  const name = eventSchemaName(event);
  return `${name.charAt(0).toLowerCase()}${name.slice(1).replace(/Event$/, '')}Webhook`;
};

/**
 * OpenAPI 3.1 `webhooks`: one POST per event, its body the event's envelope (a component schema,
 * so that generated clients name each event's type), and the component schemas themselves.
 */
export function buildWebhooksSection(): {
  webhooks: Record<string, { post: JsonSchema }>;
  schemas: Record<string, JsonSchema>;
} {
  const webhooks: Record<string, { post: JsonSchema }> = {};
  const schemas: Record<string, JsonSchema> = {};
  for (const [event, definition] of Object.entries(WEBHOOK_EVENTS)) {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(webhookEnvelopeSchema(event), {
      io: 'output',
      unrepresentable: 'any',
    }) as JsonSchema;
    const name = eventSchemaName(event);
    schemas[name] = schema;
    webhooks[event] = {
      post: {
        operationId: operationId(event),
        tags: [EVENTS_TAG.name],
        summary: event,
        description: `${definition.summary} ${SENT_TO[definition.audience]}`,
        // The gateway authenticates itself to the receiver by signature (the header parameters), not with a credential.
        security: [],
        parameters: Object.keys(WEBHOOK_HEADER_PARAMETERS).map((header) => ({
          $ref: `#/components/parameters/${header}`,
        })),
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: `#/components/schemas/${name}` }, example: exampleOf(schema) },
          },
        },
        responses: {
          '200': { description: 'Received: any 2xx within 10 seconds ends the delivery.' },
          '401': {
            description:
              'Signature refused (or any other non-2xx answer, or none in time): the delivery is retried with backoff for at least 24 hours, then marked failed.',
          },
        },
      },
    };
  }
  return { webhooks, schemas };
}
