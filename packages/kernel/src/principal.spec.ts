import { hmacSha256Hex } from './secrets';
import {
  GatewayError,
  isInternalHeader,
  openPrincipal,
  PRINCIPAL_LIFE_MS,
  spentPrincipalNonces,
  principalSigner,
  ROUTER_AUDIENCE,
  signPrincipal,
  verifyPrincipal,
  verifyPrincipalOnce,
  type Principal,
} from './index';

const SECRET = 'principal-spec-secret-0123456789abcdef';
const forBanks = { audience: 'banks', requestId: 'req_principal1' };
const refusal = (detail: string) => expect.objectContaining({ code: 'UNAUTHORIZED', detail });

/** The format of before issue 46: `base64url({...principal, iat}).hmac(payload)`, no audience, no request. */
const audienceFree = (principal: Principal, secret: string, now = Date.now()) => {
  const payload = Buffer.from(JSON.stringify({ ...principal, iat: now })).toString('base64url');
  return `${payload}.${hmacSha256Hex(secret, payload)}`;
};

describe('the signed principal (issue 46: an audience, a request, a short life)', () => {
  it('is accepted by the service and for the request it was signed for, and refused when tampered', () => {
    const header = signPrincipal({ kind: 'merchant', id: 'mer_1' }, SECRET, forBanks);
    expect(verifyPrincipal(header, SECRET, forBanks)).toEqual({ kind: 'merchant', id: 'mer_1' });
    expect(() => verifyPrincipal(header, 'another-secret', forBanks)).toThrow(
      refusal('forwarded principal has a bad signature'),
    );
    const [, signature] = header.split('.');
    const forged = Buffer.from(
      JSON.stringify({ kind: 'admin', aud: 'banks', rid: 'req_principal1', iat: Date.now(), jti: 'x' }),
    ).toString('base64url');
    expect(() => verifyPrincipal(`${forged}.${signature}`, SECRET, forBanks)).toThrow(
      refusal('forwarded principal has a bad signature'),
    );
    // Absent is refused too: the router signs every hop, an anonymous caller's included.
    expect(() => verifyPrincipal(undefined, SECRET, forBanks)).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED' }),
    );
    expect(
      verifyPrincipal(signPrincipal({ kind: 'anonymous', ip: '10.0.0.1' }, SECRET, forBanks), SECRET, forBanks),
    ).toEqual({ kind: 'anonymous', ip: '10.0.0.1' });
  });

  it('is refused by any other service, for any other request, and out of its life either way', () => {
    const start = Date.now();
    const header = signPrincipal({ kind: 'service', id: 'payments' }, SECRET, forBanks, start);
    expect(() => verifyPrincipal(header, SECRET, { ...forBanks, audience: 'identity' }, start)).toThrow(
      refusal('forwarded principal was signed for another service'),
    );
    expect(() => verifyPrincipal(header, SECRET, { ...forBanks, audience: ROUTER_AUDIENCE }, start)).toThrow(
      refusal('forwarded principal was signed for another service'),
    );
    expect(() => verifyPrincipal(header, SECRET, { ...forBanks, requestId: 'req_other' }, start)).toThrow(
      refusal('forwarded principal was signed for another request'),
    );
    expect(verifyPrincipal(header, SECRET, forBanks, start + PRINCIPAL_LIFE_MS)).toMatchObject({ kind: 'service' });
    expect(() => verifyPrincipal(header, SECRET, forBanks, start + PRINCIPAL_LIFE_MS + 1)).toThrow(
      refusal('forwarded principal is stale'),
    );
    expect(() => verifyPrincipal(header, SECRET, forBanks, start - PRINCIPAL_LIFE_MS - 1)).toThrow(
      refusal('forwarded principal is stale'),
    );
    expect(PRINCIPAL_LIFE_MS).toBeLessThanOrEqual(60_000);
  });

  it('refuses the audience-free format of before, though its HMAC was made with the platform secret', () => {
    const before = audienceFree({ kind: 'service', id: 'payments' }, SECRET);
    for (const audience of [ROUTER_AUDIENCE, 'open-banking'])
      expect(() => verifyPrincipal(before, SECRET, { audience, requestId: 'req_principal1' })).toThrow(
        expect.any(GatewayError),
      );
  });

  it('never signs the same twice, and says when it was made and its nonce', () => {
    const now = Date.now();
    const one = signPrincipal({ kind: 'service', id: 'payments' }, SECRET, forBanks, now);
    const two = signPrincipal({ kind: 'service', id: 'payments' }, SECRET, forBanks, now);
    expect(one).not.toBe(two);
    const opened = openPrincipal(one, SECRET, forBanks, now);
    expect(opened).toEqual({
      principal: { kind: 'service', id: 'payments' },
      issuedAt: now,
      nonce: expect.any(String),
    });
    expect(openPrincipal(two, SECRET, forBanks, now).nonce).not.toBe(opened.nonce);
  });

  it('accepts a signature once where asked to (the router, for services), each new one once too', () => {
    const claims = { audience: ROUTER_AUDIENCE, requestId: 'req_once1' };
    const header = signPrincipal({ kind: 'service', id: 'payments' }, SECRET, claims);
    expect(verifyPrincipalOnce(header, SECRET, claims)).toEqual({ kind: 'service', id: 'payments' });
    expect(() => verifyPrincipalOnce(header, SECRET, claims)).toThrow(refusal('forwarded principal was already used'));
    // Refused before it is spent: a wrong request's check leaves the right one its chance.
    const next = signPrincipal({ kind: 'service', id: 'payments' }, SECRET, claims);
    expect(() => verifyPrincipalOnce(next, SECRET, { ...claims, requestId: 'req_other' })).toThrow(
      refusal('forwarded principal was signed for another request'),
    );
    expect(verifyPrincipalOnce(next, SECRET, claims)).toEqual({ kind: 'service', id: 'payments' });
  });

  it('remembers the nonces of the last minutes only: an hour of service calls does not stay in memory (issue 52)', () => {
    const claims = { audience: ROUTER_AUDIENCE, requestId: 'req_hour' };
    const start = Date.now();
    for (let second = 0; second < 3_600; second += 1) {
      const now = start + second * 1_000;
      for (let call = 0; call < 5; call += 1)
        verifyPrincipalOnce(
          signPrincipal({ kind: 'service', id: 'payments' }, SECRET, claims, now),
          SECRET,
          claims,
          now,
        );
    }
    // Two generations of two principal lives (60 s each) at 5 calls a second: at most 600 and the last call's, not 18,000.
    expect(spentPrincipalNonces()).toBeLessThanOrEqual(4 * (PRINCIPAL_LIFE_MS / 1_000) * 5 + 5);
  });

  it("signs one request's principal per audience, reusing it for half its life only", () => {
    const principal: Principal = { kind: 'bank', id: 'alpha' };
    const signedFor = principalSigner(principal, SECRET, 'req_signer1');
    const banks = signedFor('banks');
    expect(signedFor('banks')).toBe(banks); // a plan's fetches to one subgraph
    const identity = signedFor('identity');
    expect(identity).not.toBe(banks);
    expect(verifyPrincipal(banks, SECRET, { audience: 'banks', requestId: 'req_signer1' })).toEqual(principal);
    expect(verifyPrincipal(identity, SECRET, { audience: 'identity', requestId: 'req_signer1' })).toEqual(principal);
    jest.useFakeTimers({ now: Date.now() + PRINCIPAL_LIFE_MS / 2 + 1, doNotFake: ['nextTick', 'setImmediate'] });
    try {
      expect(signedFor('banks')).not.toBe(banks); // signed anew, fresh for a long request's late fetch
    } finally {
      jest.useRealTimers();
    }
  });

  it("remembers a verification without trusting it: a caller's changes, another secret, the clock all still count", () => {
    const start = Date.now();
    const principal: Principal = { kind: 'bank', id: 'alpha' };
    const header = signPrincipal(principal, SECRET, forBanks, start);
    const seen = verifyPrincipal(header, SECRET, forBanks, start + 1000);
    seen.id = 'changed by a caller';
    expect(verifyPrincipal(header, SECRET, forBanks, start + 2000)).toEqual(principal);
    expect(() => verifyPrincipal(header, 'another-secret', forBanks, start + 2000)).toThrow(GatewayError);
    expect(() => verifyPrincipal(header, SECRET, { ...forBanks, audience: 'identity' }, start + 2000)).toThrow(
      GatewayError,
    );
    expect(() => verifyPrincipal(header, SECRET, forBanks, start + PRINCIPAL_LIFE_MS + 1000)).toThrow(
      refusal('forwarded principal is stale'),
    );
    // A tampered header is refused every time, never remembered.
    const tampered = `${header.slice(0, -1)}${header.endsWith('0') ? '1' : '0'}`;
    expect(() => verifyPrincipal(tampered, SECRET, forBanks, start + 1000)).toThrow(GatewayError);
    expect(() => verifyPrincipal(tampered, SECRET, forBanks, start + 1000)).toThrow(GatewayError);
  });

  it('names the internal headers an edge never takes from a client', () => {
    expect(['x-gateway-principal', 'X-Gateway-Principal', 'x-gateway-anything'].map(isInternalHeader)).toEqual([
      true,
      true,
      true,
    ]);
    expect(['x-request-id', 'authorization', 'x-service-admin-key', 'gateway'].map(isInternalHeader)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
