import { GatewayError, hmacSha256Hex, safeEqual } from '@gateway/kernel';

/** How long the customer's consent list stays open after one OTP (contract: the OTP is asked once per visit). */
export const CUSTOMER_CONSENTS_TOKEN_TTL_MS = 10 * 60_000;

/** Who a customer-consents token speaks for: one customer at one bank, as the identity registry knows them. */
export interface ConsentsCustomer {
  bankHandle: string;
  bankCustomerRef: string;
}

const TOKEN = /^ccs_(\d{1,12})_([A-Za-z0-9_-]{1,400})_([0-9a-f]{64})$/;

const mac = (secret: string, expiresAt: number, payload: string): string =>
  hmacSha256Hex(secret, `customer-consents:${expiresAt}:${payload}`);

/**
 * The token of the customer's own consent list (GET /ob/my-consents): `ccs_<expiry, epoch
 * seconds>_<bank handle and bankCustomerRef, base64url JSON>_<HMAC of both>`, keyed with the
 * platform secret, issued after the customer's OTP was verified. Stateless (never stored), valid
 * 10 minutes, and it never holds the OTP.
 */
export function issueCustomerConsentsToken(
  secret: string,
  customer: ConsentsCustomer,
  now = new Date(),
): { token: string; expiresAt: Date } {
  const expiresAt = Math.floor((now.getTime() + CUSTOMER_CONSENTS_TOKEN_TTL_MS) / 1000);
  const payload = Buffer.from(JSON.stringify([customer.bankHandle, customer.bankCustomerRef])).toString('base64url');
  return {
    token: `ccs_${expiresAt}_${payload}_${mac(secret, expiresAt, payload)}`,
    expiresAt: new Date(expiresAt * 1000),
  };
}

/** The customer a token speaks for; 401 UNAUTHORIZED for one missing, altered, forged or run out (compared in constant time). */
export function readCustomerConsentsToken(
  secret: string,
  token: string | null | undefined,
  now = new Date(),
): ConsentsCustomer {
  if (!token) throw new GatewayError('UNAUTHORIZED', 'token: required; sign in with your alias and OTP first');
  const parts = TOKEN.exec(token);
  const expiresAt = parts ? Number(parts[1]) : 0;
  if (!parts || !safeEqual(parts[3]!, mac(secret, expiresAt, parts[2]!)))
    throw new GatewayError('UNAUTHORIZED', 'token: not a token of this platform');
  if (expiresAt * 1000 <= now.getTime())
    throw new GatewayError('UNAUTHORIZED', 'token: run out (10 minutes); sign in again');
  const [bankHandle, bankCustomerRef] = JSON.parse(Buffer.from(parts[2]!, 'base64url').toString('utf8')) as [
    string,
    string,
  ];
  return { bankHandle, bankCustomerRef };
}
