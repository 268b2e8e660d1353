import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './webhook-events';

/**
 * Webhook authenticity (API-CONTRACT "Webhook headers"). Every delivery is signed twice with the
 * merchant's (or TPP's) webhook secret:
 * - Standard Webhooks: webhook-id, webhook-timestamp (Unix seconds) and webhook-signature
 *   "v1,<base64 HMAC-SHA256 of id.timestamp.body>", keyed with the bytes of the base64 text after
 *   whsec_. The timestamp is signed, so a replayed delivery is refused once it is stale.
 * - The spec's X-Service-Signature "sha256=<hex HMAC-SHA256 of the raw body>", keyed with the
 *   secret's UTF-8 bytes, with X-Service-Timestamp (ISO 8601). That signature does not cover the
 *   timestamp: it cannot stop a replay on its own, which is why Standard Webhooks comes first.
 * Every scheme present must verify, and at least one must be present.
 */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest distance between the signed timestamp and now (default 300 s), either way. */
  toleranceSeconds?: number;
  /** The time to judge freshness against (tests); the clock otherwise. */
  now?: Date;
}

export type WebhookVerificationFailure =
  'MISSING_SIGNATURE' | 'MALFORMED_HEADER' | 'INVALID_SIGNATURE' | 'STALE_TIMESTAMP' | 'INVALID_PAYLOAD';

/** The delivery is not to be trusted: answer it 401 (or 400 for INVALID_PAYLOAD) and do not act on it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const fail = (reason: WebhookVerificationFailure, message: string): never => {
  throw new WebhookVerificationError(reason, message);
};

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Standard Webhooks' key: the bytes of the base64 after whsec_; any other secret as UTF-8 (as the platform signs). */
export function standardWebhooksKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : '';
  return encoded && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0
    ? Buffer.from(encoded, 'base64')
    : Buffer.from(secret, 'utf8');
}

const sameBytes = (expected: Buffer, given: Buffer): boolean =>
  expected.length === given.length && timingSafeEqual(expected, given);

function checkFreshness(signedAt: Date, options: VerifyOptions, what: string): void {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? new Date();
  const distance = Math.abs(now.getTime() - signedAt.getTime()) / 1000;
  if (!(distance <= tolerance))
    fail('STALE_TIMESTAMP', `${what} is ${Math.round(distance)} s from now, beyond the ${tolerance} s tolerance`);
}

function verifyStandard(body: Buffer, headers: WebhookHeaders, secret: string, options: VerifyOptions): void {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature')!;
  if (!id || !timestamp) return fail('MISSING_SIGNATURE', 'webhook-signature without webhook-id and webhook-timestamp');
  if (!/^\d{1,12}$/.test(timestamp)) return fail('MALFORMED_HEADER', 'webhook-timestamp is not Unix seconds');
  checkFreshness(new Date(Number(timestamp) * 1000), options, 'webhook-timestamp');
  const expected = createHmac('sha256', standardWebhooksKey(secret))
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]))
    .digest();
  // A space-separated list ("v1,<sig> v1,<sig>" while a secret rotates): one match suffices.
  const matches = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => sameBytes(expected, Buffer.from(entry.slice(3), 'base64')));
  if (!matches) fail('INVALID_SIGNATURE', 'no webhook-signature matches the body');
}

function verifyService(body: Buffer, headers: WebhookHeaders, secret: string, options: VerifyOptions): void {
  const signature = header(headers, 'x-service-signature')!;
  const timestamp = header(headers, 'x-service-timestamp');
  if (!timestamp) return fail('MISSING_SIGNATURE', 'X-Service-Signature without X-Service-Timestamp');
  const signedAt = new Date(timestamp);
  if (!/^\d{4}-\d\d-\d\dT/.test(timestamp) || Number.isNaN(signedAt.getTime()))
    return fail('MALFORMED_HEADER', 'X-Service-Timestamp is not an ISO 8601 time');
  const hex = /^sha256=([0-9a-f]{64})$/.exec(signature)?.[1];
  if (!hex) return fail('MALFORMED_HEADER', 'X-Service-Signature is not sha256=<64 lowercase hex digits>');
  checkFreshness(signedAt, options, 'X-Service-Timestamp');
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
  if (!sameBytes(expected, Buffer.from(hex, 'hex')))
    fail('INVALID_SIGNATURE', 'X-Service-Signature does not match the body');
}

function parseEvent(body: Buffer): WebhookEvent {
  let envelope: any;
  try {
    envelope = JSON.parse(body.toString('utf8'));
  } catch {
    return fail('INVALID_PAYLOAD', 'the body is not JSON');
  }
  const isEnvelope =
    typeof envelope?.id === 'string' &&
    typeof envelope.event === 'string' &&
    typeof envelope.created_at === 'string' &&
    typeof envelope.data === 'object' &&
    envelope.data !== null;
  if (!isEnvelope) fail('INVALID_PAYLOAD', 'the body is not a webhook envelope {id, event, created_at, data}');
  return envelope as WebhookEvent;
}

/**
 * Checks a delivery and answers its event. `rawBody` is the body exactly as received (a string or
 * the bytes, before any JSON parsing: re-serialising changes bytes and breaks the signature).
 * Throws WebhookVerificationError when no signature is present, one fails, or a timestamp is stale.
 */
export function verify(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array))
    throw new TypeError('webhooks.verify needs the raw body (string or bytes), not a parsed object');
  if (!secret) throw new TypeError('webhooks.verify needs the webhook secret (whsec_…)');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const standard = header(headers, 'webhook-signature');
  const service = header(headers, 'x-service-signature');
  if (!standard && !service) fail('MISSING_SIGNATURE', 'neither webhook-signature nor X-Service-Signature is present');
  if (standard) verifyStandard(body, headers, secret, options);
  if (service) verifyService(body, headers, secret, options);
  return parseEvent(body);
}

/**
 * The headers the gateway sends with `body` (both schemes), for testing your own endpoint with a
 * delivery you make up, or re-sending one you received (e.g. to a local server) under your own secret.
 */
export function sign(body: string, secret: string, options: { id: string; timestamp?: Date }): Record<string, string> {
  const at = options.timestamp ?? new Date();
  const seconds = Math.floor(at.getTime() / 1000);
  const standard = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${options.id}.${seconds}.${body}`)
    .digest('base64');
  return {
    'content-type': 'application/json',
    'x-service-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    'x-service-event-id': options.id,
    'x-service-timestamp': at.toISOString(),
    'webhook-id': options.id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${standard}`,
  };
}

export const webhooks = { verify, sign };
