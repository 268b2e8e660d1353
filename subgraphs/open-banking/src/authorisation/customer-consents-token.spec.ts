import { GatewayError } from '@gateway/kernel';
import {
  CUSTOMER_CONSENTS_TOKEN_TTL_MS,
  issueCustomerConsentsToken,
  readCustomerConsentsToken,
} from './customer-consents-token';

const SECRET = 'a-platform-secret-of-enough-length';
const alice = { bankHandle: 'pay-bank', bankCustomerRef: 'cust-42' };

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error.code;
    throw error;
  }
  return 'accepted';
};

describe('customer-consents token', () => {
  const now = new Date('2026-11-29T10:00:00Z');
  const { token, expiresAt } = issueCustomerConsentsToken(SECRET, alice, now);

  it('speaks for the customer it was issued to, for 10 minutes', () => {
    expect(expiresAt.getTime()).toBe(now.getTime() + CUSTOMER_CONSENTS_TOKEN_TTL_MS);
    expect(readCustomerConsentsToken(SECRET, token, new Date(now.getTime() + 9 * 60_000))).toEqual(alice);
    expect(refusal(() => readCustomerConsentsToken(SECRET, token, new Date(now.getTime() + 10 * 60_000)))).toBe(
      'UNAUTHORIZED',
    );
  });

  it('refuses a missing, altered, re-signed or foreign token', () => {
    const [, expiry, payload, mac] = /^ccs_(\d+)_(.+)_([0-9a-f]{64})$/.exec(token)!;
    const bob = Buffer.from(JSON.stringify(['pay-bank', 'cust-43'])).toString('base64url');
    for (const bad of [
      null,
      '',
      'ccs_',
      `ccs_${expiry}_${bob}_${mac}`,
      `ccs_${Number(expiry) + 60}_${payload}_${mac}`,
      issueCustomerConsentsToken('another-secret-of-enough-length', alice, now).token,
    ])
      expect(refusal(() => readCustomerConsentsToken(SECRET, bad, now))).toBe('UNAUTHORIZED');
  });
});
