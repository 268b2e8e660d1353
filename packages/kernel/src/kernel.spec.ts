import {
  errorBody,
  GatewayError,
  httpStatusOf,
  newId,
  openSealedSecret,
  parseIban,
  refusalBody,
  safeEqual,
  sealSecret,
  signPrincipal,
  verifyPrincipal,
} from './index';

describe('kernel', () => {
  it('issues prefixed random ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('paymentSession')));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^ops_[0-9A-Za-z]{24}$/);
  });

  it('maps spec codes to their HTTP status and unknown codes to 500', () => {
    expect(httpStatusOf('HANDLE_TAKEN')).toBe(409);
    expect(httpStatusOf('CBS_TIMEOUT')).toBe(503);
    expect(httpStatusOf('SCA_REQUIRED')).toBe(428);
    expect(httpStatusOf('NOPE')).toBe(500);
    const error = new GatewayError('ALIAS_INACTIVE', 'alias bob is deactivated');
    expect(error.extensions).toMatchObject({ code: 'ALIAS_INACTIVE', status: 422, detail: 'alias bob is deactivated' });
  });

  it('parses IBANs and reads the institution code', () => {
    expect(parseIban('LY83 0020 4800 0020 1001 2036 1')).toEqual({
      iban: 'LY83002048000020100120361',
      countryCode: 'LY',
      institutionCode: '002',
    });
    expect(parseIban('LY84002048000020100120361')).toBeNull(); // checksum
    expect(parseIban('not an iban')).toBeNull();
  });

  it('compares secrets in constant time and still exactly', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });

  it('signs the forwarded principal and refuses a tampered or stale one', () => {
    const header = signPrincipal({ kind: 'merchant', id: 'mer_1' }, 'secret');
    expect(verifyPrincipal(header, 'secret')).toEqual({ kind: 'merchant', id: 'mer_1' });
    expect(() => verifyPrincipal(header, 'other')).toThrow(GatewayError);
    const [payload, sig] = header.split('.');
    const forged = Buffer.from(JSON.stringify({ kind: 'admin', iat: Date.now() })).toString('base64url');
    expect(() => verifyPrincipal(`${forged}.${sig}`, 'secret')).toThrow(GatewayError);
    expect(payload).toBeTruthy();
    expect(() =>
      verifyPrincipal(signPrincipal({ kind: 'admin' }, 'secret', Date.now() - 10 * 60_000), 'secret'),
    ).toThrow(expect.objectContaining({ detail: 'forwarded principal is stale' }));
    // Absent is refused too: the router signs every hop, an anonymous caller's included.
    expect(() => verifyPrincipal(undefined, 'secret')).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
    expect(verifyPrincipal(signPrincipal({ kind: 'anonymous', ip: '10.0.0.1' }, 'secret'), 'secret')).toEqual({
      kind: 'anonymous',
      ip: '10.0.0.1',
    });
  });

  it("answers a refusal in the spec's shape: the REST body, and one GraphQL error on a GraphQL endpoint", () => {
    const refusal = new GatewayError('RATE_LIMITED', 'wait');
    expect(errorBody(refusal, 'req_a')).toEqual({
      error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded', detail: 'wait', request_id: 'req_a' },
    });
    expect(refusalBody('req_b', refusal)).toEqual({
      errors: [
        {
          message: 'Rate limit exceeded',
          extensions: { code: 'RATE_LIMITED', status: 429, detail: 'wait', requestId: 'req_b' },
        },
      ],
    });
  });

  it('reuses a signature for half its life and a verification until the header is stale, never across secrets', () => {
    const principal = { kind: 'bank' as const, id: 'alpha' };
    const start = Date.now();
    const header = signPrincipal(principal, 'secret', start);
    expect(signPrincipal(principal, 'secret', start + 60_000)).toBe(header);
    expect(signPrincipal(principal, 'secret', start + 3 * 60_000)).not.toBe(header); // past half of the 5 minutes: signed anew
    expect(signPrincipal(principal, 'other', start + 60_000)).not.toBe(header);

    const seen = verifyPrincipal(header, 'secret', start + 1000);
    seen.id = 'changed by a caller';
    expect(verifyPrincipal(header, 'secret', start + 2000)).toEqual(principal);
    expect(() => verifyPrincipal(header, 'other', start + 2000)).toThrow(GatewayError);
    // Known, but stale now: refused all the same.
    expect(() => verifyPrincipal(header, 'secret', start + 6 * 60_000)).toThrow(
      expect.objectContaining({ detail: 'forwarded principal is stale' }),
    );
    // A tampered header is refused every time, never remembered.
    const tampered = `${header.slice(0, -1)}${header.endsWith('0') ? '1' : '0'}`;
    expect(() => verifyPrincipal(tampered, 'secret', start + 1000)).toThrow(GatewayError);
    expect(() => verifyPrincipal(tampered, 'secret', start + 1000)).toThrow(GatewayError);
  });

  it('mints ids of 24 base62 characters, never the same twice', () => {
    const ids = new Set(Array.from({ length: 5000 }, () => newId('request')));
    expect(ids.size).toBe(5000);
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{24}$/);
  });

  it('seals a secret so only the platform secret opens it', () => {
    const sealed = sealSecret('sik_raw', 'platform');
    expect(sealed).not.toContain('sik_raw');
    expect(openSealedSecret(sealed, 'platform')).toBe('sik_raw');
    expect(() => openSealedSecret(sealed, 'other')).toThrow();
  });
});
