import { Webhook } from 'standardwebhooks';
import type { WebhookEvent, WebhookEventName } from './webhook-events';
import { sign, verify, WebhookVerificationError, type WebhookHeaders } from './webhooks';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const ENVELOPE = {
  id: 'evt_3kQ9',
  event: 'payment.completed',
  created_at: NOW.toISOString(),
  livemode: false,
  sequence: 3,
  data: { session_id: 'ops_1', status: 'COMPLETED', amount: 1500, currency: 'LYD', reference: 'order-1' },
};
const BODY = JSON.stringify(ENVELOPE);

const refusal = (run: () => unknown): WebhookVerificationError => {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('the delivery was accepted');
};
const only = (headers: Record<string, string>, prefix: string) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith(prefix)));

describe('webhooks.verify', () => {
  it('accepts the Standard Webhooks specification’s own example vector', () => {
    // From the Standard Webhooks specification (and every one of its libraries' tests).
    const body = '{"id":"evt_1","event":"payment.completed","created_at":"2021-02-25T15:02:10Z","data":{}}';
    const library = new Webhook(SECRET);
    const at = new Date(1614265330 * 1000);
    expect(library.sign('msg_p5jXN8AQM9LWM0D4loKWxJek', at, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': library.sign('msg_p5jXN8AQM9LWM0D4loKWxJek', at, body),
    };
    expect(verify(body, headers, SECRET, { now: at })).toMatchObject({ id: 'evt_1', event: 'payment.completed' });
    // The specification's example signature itself verifies over its own payload's bytes; our verify
    // answers INVALID_PAYLOAD (not a signature refusal) since that payload is no envelope.
    const example = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    expect(refusal(() => verify('{"test": 2432232314}', example, SECRET, { now: at })).reason).toBe('INVALID_PAYLOAD');
    expect(refusal(() => verify('{"test": 2432232315}', example, SECRET, { now: at })).reason).toBe(
      'INVALID_SIGNATURE',
    );
  });

  it('accepts the spec’s X-Service-Signature (GitHub’s X-Hub-Signature-256 vector) with a fresh X-Service-Timestamp', () => {
    const headers = {
      'X-Service-Signature': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      'X-Service-Timestamp': NOW.toISOString(),
    };
    const body = JSON.stringify({ ...ENVELOPE, data: {} });
    // The vector's body is not an envelope: a correct signature over it gets as far as the payload check.
    expect(refusal(() => verify('Hello, World!', headers, "It's a Secret to Everybody", { now: NOW })).reason).toBe(
      'INVALID_PAYLOAD',
    );
    expect(refusal(() => verify('Hello, World?', headers, "It's a Secret to Everybody", { now: NOW })).reason).toBe(
      'INVALID_SIGNATURE',
    );
    expect(
      verify(body, only(sign(body, SECRET, { id: 'evt_1', timestamp: NOW }), 'x-service'), SECRET, { now: NOW }),
    ).toEqual(JSON.parse(body));
  });

  it('answers the typed envelope of a delivery signed both ways, from a string, bytes or Headers', () => {
    const headers = sign(BODY, SECRET, { id: ENVELOPE.id, timestamp: NOW });
    const event = verify(BODY, headers, SECRET, { now: NOW });
    expect(event).toEqual(ENVELOPE);
    expect(event.event).toBe('payment.completed');
    expect(verify(Buffer.from(BODY), new Headers(headers), SECRET, { now: NOW })).toEqual(ENVELOPE);
    expect(verify(new TextEncoder().encode(BODY), headers, SECRET, { now: NOW })).toEqual(ENVELOPE);
  });

  it('signs as the Standard Webhooks library verifies, and verifies what the library signs', () => {
    const headers = sign(BODY, SECRET, { id: ENVELOPE.id, timestamp: new Date() });
    expect(new Webhook(SECRET).verify(BODY, only(headers, 'webhook-'))).toEqual(ENVELOPE);
    const library = {
      'webhook-id': ENVELOPE.id,
      'webhook-timestamp': String(Math.floor(NOW.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign(ENVELOPE.id, NOW, BODY),
    };
    expect(verify(BODY, library, SECRET, { now: NOW })).toEqual(ENVELOPE);
  });

  it('accepts any one signature of a rotation list', () => {
    const headers = sign(BODY, SECRET, { id: ENVELOPE.id, timestamp: NOW });
    const rotating = {
      ...only(headers, 'webhook-'),
      'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}`,
    };
    expect(verify(BODY, rotating, SECRET, { now: NOW })).toEqual(ENVELOPE);
  });

  it('refuses a changed body, a changed id, another secret, or a forged signature in either scheme', () => {
    const headers = sign(BODY, SECRET, { id: ENVELOPE.id, timestamp: NOW });
    const changed = BODY.replace('1500', '150000');
    for (const scheme of ['webhook-', 'x-service']) {
      const signed = only(headers, scheme);
      expect(refusal(() => verify(changed, signed, SECRET, { now: NOW })).reason).toBe('INVALID_SIGNATURE');
      expect(refusal(() => verify(BODY, signed, 'whsec_bm90IHRoZSBzZWNyZXQgYXQgYWxsIQ==', { now: NOW })).reason).toBe(
        'INVALID_SIGNATURE',
      );
    }
    expect(refusal(() => verify(BODY, { ...headers, 'webhook-id': 'evt_other' }, SECRET, { now: NOW })).reason).toBe(
      'INVALID_SIGNATURE',
    );
    const forged = { ...headers, 'x-service-signature': `sha256=${'0'.repeat(64)}` };
    expect(refusal(() => verify(BODY, forged, SECRET, { now: NOW })).reason).toBe('INVALID_SIGNATURE');
  });

  it('refuses stale and future timestamps beyond the tolerance (5 minutes by default), in either scheme', () => {
    const headers = sign(BODY, SECRET, { id: ENVELOPE.id, timestamp: NOW });
    const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
    for (const scheme of ['webhook-', 'x-service']) {
      const signed = only(headers, scheme);
      expect(verify(BODY, signed, SECRET, { now: later(299) })).toEqual(ENVELOPE);
      expect(verify(BODY, signed, SECRET, { now: later(-299) })).toEqual(ENVELOPE);
      expect(refusal(() => verify(BODY, signed, SECRET, { now: later(301) })).reason).toBe('STALE_TIMESTAMP');
      expect(refusal(() => verify(BODY, signed, SECRET, { now: later(-301) })).reason).toBe('STALE_TIMESTAMP');
      expect(verify(BODY, signed, SECRET, { now: later(3000), toleranceSeconds: 3600 })).toEqual(ENVELOPE);
      expect(refusal(() => verify(BODY, signed, SECRET, { now: later(11), toleranceSeconds: 10 })).reason).toBe(
        'STALE_TIMESTAMP',
      );
    }
    // X-Service-Timestamp is not covered by its signature: a fresh one on a stale Standard Webhooks
    // delivery does not make it pass, since every scheme present is checked.
    const replay = { ...headers, 'x-service-timestamp': later(600).toISOString() };
    expect(refusal(() => verify(BODY, replay, SECRET, { now: later(600) })).reason).toBe('STALE_TIMESTAMP');
  });

  it('refuses a delivery with no signature, half a scheme, or malformed headers', () => {
    const headers = sign(BODY, SECRET, { id: ENVELOPE.id, timestamp: NOW });
    const cases: Array<[WebhookHeaders, string]> = [
      [{}, 'MISSING_SIGNATURE'],
      [{ 'content-type': 'application/json' }, 'MISSING_SIGNATURE'],
      [{ 'webhook-signature': headers['webhook-signature']! }, 'MISSING_SIGNATURE'],
      [{ 'x-service-signature': headers['x-service-signature']! }, 'MISSING_SIGNATURE'],
      [{ ...only(headers, 'webhook-'), 'webhook-timestamp': NOW.toISOString() }, 'MALFORMED_HEADER'],
      [
        { ...only(headers, 'x-service'), 'x-service-signature': headers['x-service-signature']!.toUpperCase() },
        'MALFORMED_HEADER',
      ],
      [{ ...only(headers, 'x-service'), 'x-service-timestamp': 'yesterday' }, 'MALFORMED_HEADER'],
    ];
    for (const [given, reason] of cases)
      expect(refusal(() => verify(BODY, given, SECRET, { now: NOW })).reason).toBe(reason);
  });

  it('refuses a parsed body (its bytes are gone) and a missing secret', () => {
    const headers = sign(BODY, SECRET, { id: ENVELOPE.id, timestamp: NOW });
    expect(() => verify(ENVELOPE as unknown as string, headers, SECRET, { now: NOW })).toThrow(TypeError);
    expect(() => verify(BODY, headers, '', { now: NOW })).toThrow(TypeError);
  });

  it('refuses a signed body that is not an envelope', () => {
    const body = '["not", "an", "envelope"]';
    const headers = sign(body, SECRET, { id: 'evt_1', timestamp: NOW });
    expect(refusal(() => verify(body, headers, SECRET, { now: NOW })).reason).toBe('INVALID_PAYLOAD');
  });
});

// Compile-time checks (npm run typecheck): verify answers the events of the document's webhooks section.
export function eventTypeChecks(event: WebhookEvent): string | undefined {
  switch (event.event) {
    case 'payment.completed': {
      const bank: string = event.data.creditor_bank;
      const settlement: 'internal' | 'rail' = event.data.settlement_type;
      const status: 'COMPLETED' = event.data.status;
      return `${bank} ${settlement} ${status}`;
    }
    case 'refund.failed':
      return event.data.failure_code ?? event.data.refund_id;
    case 'refund.completed':
      // @ts-expect-error a refund.completed carries no failure_code
      return event.data.failure_code;
    case 'payment_order.pending_sca':
      return event.data.sca_url;
    case 'mandate.charge.completed':
      return event.data.charge_id;
    default:
      return undefined;
  }
}
// @ts-expect-error not an event of the document
export const unknownEvent: WebhookEventName = 'payment.refunded';
