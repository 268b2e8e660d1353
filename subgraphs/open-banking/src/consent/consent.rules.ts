import { GatewayError, z } from '@gateway/kernel';

/** The spec's four scopes ("Scopes"). */
export const OB_SCOPES = ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'] as const;
export type ObScope = (typeof OB_SCOPES)[number];

/** The scope of a funds-confirmation consent (issue 51, CBPII); never requested through POST /ob/consents. */
export const FUNDS_CONFIRMATION_SCOPE = 'funds_confirmation';
/** The scope of a VRP consent (issue 51): payments within its control parameters, and funds confirmations on them. */
export const VRP_SCOPE = 'vrp_payments';
/** Any scope a consent may hold. */
export type ConsentScope = ObScope | typeof FUNDS_CONFIRMATION_SCOPE | typeof VRP_SCOPE;

/** RFC 7636 4.2: BASE64URL(SHA256(verifier)) without padding is always 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const STATE_MAX = 512;

/**
 * A consent request's own shape. What depends on others (the TPP's redirect URIs, the bank's
 * scopes and maximum expiry) is checked by the service; the PKCE method before this, since a
 * method other than S256 has its own code (PKCE_METHOD_REJECTED).
 */
export const createConsentRules = z
  .object({
    bankHandle: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    scopes: z
      .array(z.enum(OB_SCOPES, { error: `must each be one of ${OB_SCOPES.join(', ')}` }))
      .min(1, 'must list at least one scope')
      .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope'),
    redirectUri: z.string().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
    state: z.string().min(1, 'must not be empty').max(STATE_MAX, `must be at most ${STATE_MAX} characters`),
    codeChallenge: z
      .string()
      .regex(S256_CHALLENGE, 'must be a PKCE S256 challenge: 43 base64url characters (RFC 7636)'),
    codeChallengeMethod: z.literal('S256'),
    expiryDays: z.number().int('must be an integer number of days').min(1, 'must be at least 1'),
  })
  .strict();

export type CreateConsentRequest = z.infer<typeof createConsentRules>;

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

export const consentPageRules = z
  .object({
    first: z
      .number()
      .int()
      .min(1, `must be between 1 and ${PAGE_SIZE_MAX}`)
      .max(PAGE_SIZE_MAX, `must be between 1 and ${PAGE_SIZE_MAX}`)
      .nullish(),
    after: z.string().trim().min(1, 'must not be empty').max(64).nullish(),
  })
  .strict();

/**
 * Spec rule 1: a code_challenge_method other than S256 has its own code, whatever else is wrong
 * with the request, so it is checked on the raw input before the rest is parsed. Every endpoint
 * taking an authorization request (consents, funds-confirmation consents, PAR) asks here.
 */
export function assertS256Method(method: unknown): void {
  if (typeof method === 'string' && method !== 'S256')
    throw new GatewayError(
      'PKCE_METHOD_REJECTED',
      `code_challenge_method: ${JSON.stringify(method.slice(0, 16))} is not accepted; use S256`,
    );
}
