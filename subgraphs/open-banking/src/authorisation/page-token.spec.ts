import { GatewayError } from '@gateway/kernel';
import { assertPageToken, issuePageToken, PAGE_TOKEN_TTL_MS } from './page-token';

const SECRET = 'platform-secret-for-page-token-tests-0123456789';
const refusal = (run: () => void): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return `${(error as GatewayError).code}: ${(error as GatewayError).detail}`;
  }
};

describe('consent page token', () => {
  const opened = new Date('2026-03-01T10:00:00Z');
  const token = issuePageToken(SECRET, 'con_A', opened);

  it('is accepted for its consent while the page is fresh', () => {
    expect(token).toMatch(/^cpt_\d+_[0-9a-f]{64}$/);
    expect(
      refusal(() => assertPageToken(SECRET, 'con_A', token, new Date(opened.getTime() + PAGE_TOKEN_TTL_MS - 1000))),
    ).toBeUndefined();
  });

  it('refuses a missing token, another consent’s, an altered one, one under another secret, and one run out', () => {
    expect(refusal(() => assertPageToken(SECRET, 'con_A', undefined, opened))).toMatch(
      /^UNAUTHORIZED: pageToken: required/,
    );
    expect(refusal(() => assertPageToken(SECRET, 'con_A', '', opened))).toMatch(/^UNAUTHORIZED: pageToken: required/);
    expect(refusal(() => assertPageToken(SECRET, 'con_B', token, opened))).toMatch(
      /^UNAUTHORIZED: pageToken: not a token of this consent page/,
    );
    const [, expiry, mac] = token.split('_');
    const later = `cpt_${Number(expiry) + 3600}_${mac}`;
    expect(refusal(() => assertPageToken(SECRET, 'con_A', later, opened))).toMatch(/not a token of this consent page/);
    expect(refusal(() => assertPageToken(SECRET, 'con_A', `cpt_${expiry}_${'0'.repeat(64)}`, opened))).toMatch(
      /not a token of this consent page/,
    );
    expect(refusal(() => assertPageToken(SECRET, 'con_A', 'con_A', opened))).toMatch(
      /not a token of this consent page/,
    );
    expect(refusal(() => assertPageToken('another-secret-of-another-platform-000000', 'con_A', token, opened))).toMatch(
      /not a token of this consent page/,
    );
    expect(
      refusal(() => assertPageToken(SECRET, 'con_A', token, new Date(opened.getTime() + PAGE_TOKEN_TTL_MS))),
    ).toMatch(/open too long/);
  });
});
