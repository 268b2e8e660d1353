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
