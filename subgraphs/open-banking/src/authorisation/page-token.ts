import { GatewayError, hmacSha256Hex, safeEqual } from '@gateway/kernel';

/** How long a consent page may stay open before its decision token runs out (the customer fetches an OTP meanwhile). */
export const PAGE_TOKEN_TTL_MS = 30 * 60_000;

const TOKEN = /^cpt_(\d{1,12})_([0-9a-f]{64})$/;

const mac = (secret: string, consentId: string, expiresAt: number): string =>
  hmacSha256Hex(secret, `consent-page:${consentId}:${expiresAt}`);

/**
 * The token the consent page carries for its customer's decision (issue 28: a rejection by
 * consent id alone is refused): `cpt_<expiry, epoch seconds>_<HMAC of the consent and the
 * expiry>`, keyed with the platform secret. Bound to one consent, short-lived, and stateless:
 * nothing is stored, so opening the page writes nothing.
 */
export function issuePageToken(secret: string, consentId: string, now = new Date()): string {
  const expiresAt = Math.floor((now.getTime() + PAGE_TOKEN_TTL_MS) / 1000);
  return `cpt_${expiresAt}_${mac(secret, consentId, expiresAt)}`;
}

/** Refuses (401 UNAUTHORIZED) a token that is missing, of another consent, altered or run out; compared in constant time. */
export function assertPageToken(
  secret: string,
  consentId: string,
  token: string | null | undefined,
  now = new Date(),
): void {
  if (!token)
    throw new GatewayError('UNAUTHORIZED', 'pageToken: required; the consent page gives it (open the consent_url)');
  const parts = TOKEN.exec(token);
  const expiresAt = parts ? Number(parts[1]) : 0;
  if (!parts || !safeEqual(parts[2]!, mac(secret, consentId, expiresAt)))
    throw new GatewayError('UNAUTHORIZED', 'pageToken: not a token of this consent page');
  if (expiresAt * 1000 <= now.getTime())
    throw new GatewayError('UNAUTHORIZED', 'pageToken: the consent page was open too long; open it again');
}
