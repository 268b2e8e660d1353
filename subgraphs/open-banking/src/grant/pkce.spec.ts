import { CODE_VERIFIER, s256Matches } from './pkce';

describe('PKCE S256', () => {
  // RFC 7636 Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('matches the RFC 7636 example and nothing else', () => {
    expect(s256Matches(verifier, challenge)).toBe(true);
    expect(s256Matches(`${verifier.slice(0, -1)}j`, challenge)).toBe(false);
    expect(s256Matches(verifier, `${challenge}=`)).toBe(false);
    // plain (verifier = challenge) never passes the S256 check.
    expect(s256Matches(challenge, challenge)).toBe(false);
  });

  it('accepts 43-128 unreserved characters only (RFC 7636 4.1)', () => {
    expect(CODE_VERIFIER.test('a'.repeat(43))).toBe(true);
    expect(CODE_VERIFIER.test(`${'A'.repeat(40)}-._~`)).toBe(true);
    expect(CODE_VERIFIER.test('a'.repeat(128))).toBe(true);
    expect(CODE_VERIFIER.test('a'.repeat(42))).toBe(false);
    expect(CODE_VERIFIER.test('a'.repeat(129))).toBe(false);
    for (const bad of ['+', '/', '=', ' ', '%', 'é']) expect(CODE_VERIFIER.test(`${'a'.repeat(43)}${bad}`)).toBe(false);
  });
});
