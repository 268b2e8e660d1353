import { rules, z } from '@gateway/kernel';
import { S256_CHALLENGE, STATE_MAX } from '../consent/consent.rules';

/** ISO 8601 date-time with an offset or Z (an instant: no local times). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** POST /ob/funds-confirmation-consents: its own shape; the TPP, the bank and the expiry's bound are the service's. */
export const createFundsConsentRules = z
  .object({
    bankHandle: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    account: rules.customer,
    expiry: z
      .string()
      .regex(INSTANT, 'must be an ISO 8601 date-time with a time zone (2026-12-31T23:59:59Z)')
      .refine((value) => !Number.isNaN(Date.parse(value)), 'must be a real date-time'),
    redirectUri: z.string().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
    state: z.string().min(1, 'must not be empty').max(STATE_MAX, `must be at most ${STATE_MAX} characters`),
    codeChallenge: z
      .string()
      .regex(S256_CHALLENGE, 'must be a PKCE S256 challenge: 43 base64url characters (RFC 7636)'),
    codeChallengeMethod: z.literal('S256'),
  })
  .strict();

/** POST /ob/funds-confirmations. */
export const confirmFundsRules = z
  .object({
    consentId: z.string().trim().min(1, 'must not be empty').max(64),
    reference: rules.text(140),
    amount: rules.amount,
    currency: rules.currency,
  })
  .strict();
