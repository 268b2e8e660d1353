import { createHmac } from 'node:crypto';

/** The webhook body: the spec's envelope, serialised once and sent byte for byte on every attempt. */
export interface WebhookEnvelope {
  id: string;
  event: string;
  created_at: string;
  /** false for an event of a test object (API-CONTRACT "Test mode"). */
  livemode: boolean;
  /** The event's place among its session's (consent's, payment order's, mandate's) events, from 1. */
  sequence?: number;
  data: Record<string, unknown>;
}

export const serializeEnvelope = (envelope: WebhookEnvelope): string => JSON.stringify(envelope);

/**
 * Standard Webhooks keys its HMAC with the bytes of the base64 text after `whsec_`; our secrets
 * (whsec_ + 32 base62 characters) are valid base64, so a receiver hands the very secret it was
 * given to a maintained verifier. Anything else is used as its UTF-8 bytes.
 */
export function standardWebhooksKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : '';
  return encoded && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0
    ? Buffer.from(encoded, 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * The headers of one attempt (API-CONTRACT "Webhook headers"): the spec's X-Service-Signature
 * over the raw body, and the Standard Webhooks trio over "id.timestamp.body" so that receivers
 * can refuse replays. Both keyed with the audience's (merchant's or TPP's) current secret.
 */
export function signedHeaders(body: string, eventId: string, secret: string, now: Date): Record<string, string> {
  const unixSeconds = Math.floor(now.getTime() / 1000);
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  const standard = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${eventId}.${unixSeconds}.${body}`)
    .digest('base64');
  return {
    'content-type': 'application/json',
    'user-agent': 'payment-gateway-webhooks/1',
    'x-service-signature': `sha256=${hex}`,
    'x-service-event-id': eventId,
    'x-service-timestamp': now.toISOString(),
    'webhook-id': eventId,
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': `v1,${standard}`,
  };
}
