import { newSecret } from '@gateway/kernel';
import { sign, verify } from '@gateway/sdk';
import { serializeEnvelope, signedHeaders } from '@gateway/subgraph-payments/testing';

/**
 * The SDK's verifier against the platform's own webhook signer (subgraphs/payments/src/webhook/
 * signature.ts), with secrets as the platform issues them (whsec_ + 32 base62 characters, whose
 * Standard Webhooks key is their base64 decoding) and as a TPP or an old merchant may hold them.
 */
describe('@gateway/sdk webhooks against the platform signer', () => {
  const now = new Date();
  const envelope = {
    id: 'evt_7Hq2',
    event: 'refund.completed',
    created_at: now.toISOString(),
    livemode: true,
    sequence: 1,
    data: { refund_id: 'rfd_1', session_id: 'ops_1', status: 'COMPLETED', amount: 500, currency: 'LYD' },
  };

  it.each([
    ['an issued secret', newSecret('whsec_')],
    ['another issued secret', newSecret('whsec_')],
    ['a whsec_ secret that is not base64', 'whsec_not-base64!'],
    ['a secret without the prefix', 'plain-shared-secret'],
  ])('verifies every delivery the platform signs with %s, and only with that secret', (_what, secret) => {
    const body = serializeEnvelope(envelope);
    const headers = signedHeaders(body, envelope.id, secret, now);
    expect(verify(body, headers, secret)).toEqual(envelope);
    expect(() => verify(body, headers, newSecret('whsec_'))).toThrow(/match/);
    // Either scheme alone, as a receiver behind a proxy that keeps only some headers gets it.
    const standardOnly = Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('webhook-')));
    const serviceOnly = Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('x-service-')));
    expect(verify(body, standardOnly, secret)).toEqual(envelope);
    expect(verify(body, serviceOnly, secret)).toEqual(envelope);
    // What the SDK signs is byte for byte what the platform sends (a CLI forwarding events re-signs this way).
    const { 'user-agent': _agent, ...platform } = headers;
    expect(sign(body, secret, { id: envelope.id, timestamp: now })).toEqual(platform);
  });

  it('refuses a platform delivery replayed after the tolerance', () => {
    const secret = newSecret('whsec_');
    const body = serializeEnvelope(envelope);
    const signedAt = new Date(now.getTime() - 10 * 60_000);
    const headers = signedHeaders(body, envelope.id, secret, signedAt);
    expect(() => verify(body, headers, secret)).toThrow('beyond the 300 s tolerance');
    expect(verify(body, headers, secret, { toleranceSeconds: 900 })).toEqual(envelope);
  });
});
