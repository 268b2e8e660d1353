import type { LookupAddress } from 'node:dns';
import { EgressRefusedError, guardedLookup, isEgressRefusal } from './egress-lookup';

const resolve = (policy: { privateTargets: boolean }, hostname: string, all = false) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((done) =>
    guardedLookup(policy)(hostname, { all }, (error, address) => done({ error, address })),
  );

describe('guarded lookup', () => {
  it('refuses a name that resolves to loopback unless PRIVATE_TARGETS, in the one wording', async () => {
    const refused = await resolve({ privateTargets: false }, 'localhost');
    expect(refused.error).toBeInstanceOf(EgressRefusedError);
    expect(refused.error?.message).toBe('target refused: not a public address');
    expect(refused.error?.code).toBe('EGRESS_TARGET_REFUSED');

    const allowed = await resolve({ privateTargets: true }, 'localhost');
    expect(allowed.error).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(allowed.address);
    const every = await resolve({ privateTargets: true }, 'localhost', true);
    expect((every.address as LookupAddress[]).length).toBeGreaterThan(0);
  });

  it('finds its refusal inside the errors HTTP clients wrap it in', () => {
    const refusal = new EgressRefusedError();
    expect(isEgressRefusal(refusal)).toBe(true);
    expect(isEgressRefusal(new TypeError('fetch failed', { cause: refusal }))).toBe(true);
    expect(isEgressRefusal(new Error('connect ECONNREFUSED'))).toBe(false);
    expect(isEgressRefusal(undefined)).toBe(false);
  });
});
