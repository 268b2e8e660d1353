import { rules, z } from '@gateway/kernel';
import { S256_CHALLENGE, STATE_MAX } from '../consent/consent.rules';
import { PERIOD_ALIGNMENTS, PERIOD_TYPES } from './vrp-limits';

/** ISO 8601 date-time with an offset or Z (an instant: no local times). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

const instant = z
  .string()
  .regex(INSTANT, 'must be an ISO 8601 date-time with a time zone (2026-12-31T23:59:59Z)')
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be a real date-time');

const periodicLimit = z
  .object({
    periodType: z.enum(PERIOD_TYPES, { error: `must be one of ${PERIOD_TYPES.join(', ')}` }),
    periodAlignment: z.enum(PERIOD_ALIGNMENTS, { error: `must be one of ${PERIOD_ALIGNMENTS.join(', ')}` }),
    amount: rules.amount,
  })
  .strict()
  // UK Open Banking's rule: a fortnight has no calendar to line up with.
  .refine((limit) => !(limit.periodType === 'Fortnight' && limit.periodAlignment === 'Calendar'), {
    message: 'a Fortnight must be aligned to the Consent: Calendar has no fortnights',
    path: ['periodAlignment'],
  });

/** The control parameters (UK Open Banking VRP's ControlParameters). */
const controlParameters = z
  .object({
    maximumIndividualAmount: rules.amount,
    periodicLimits: z
      .array(periodicLimit)
      .min(1, 'must list at least one limit')
      .max(PERIOD_TYPES.length * 2, `must list at most ${PERIOD_TYPES.length * 2} limits`)
      .refine(
        (limits) =>
          new Set(limits.map((limit) => `${limit.periodType}/${limit.periodAlignment}`)).size === limits.length,
        'must not repeat a period type with the same alignment',
      ),
    validFrom: instant.nullish(),
    validTo: instant.nullish(),
  })
  .strict()
  .refine(
    (parameters) =>
      !parameters.validFrom || !parameters.validTo || Date.parse(parameters.validTo) > Date.parse(parameters.validFrom),
    { message: 'must be after valid_from', path: ['validTo'] },
  );

/** POST /ob/vrp-consents: its own shape; the TPP, the bank, the payee and the dates' bounds are the service's. */
export const createVrpConsentRules = z
  .object({
    bankHandle: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    creditor: rules.customer,
    currency: rules.currency,
    reference: rules.text(140),
    controlParameters,
    redirectUri: z.string().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
    state: z.string().min(1, 'must not be empty').max(STATE_MAX, `must be at most ${STATE_MAX} characters`),
    codeChallenge: z
      .string()
      .regex(S256_CHALLENGE, 'must be a PKCE S256 challenge: 43 base64url characters (RFC 7636)'),
    codeChallengeMethod: z.literal('S256'),
  })
  .strict();

export type CreateVrpConsentRequest = z.infer<typeof createVrpConsentRules>;

/** POST /ob/vrp-payments. */
export const createVrpPaymentRules = z
  .object({
    consentId: z.string().trim().min(1, 'must not be empty').max(64),
    amount: rules.amount,
    reference: rules.text(140),
  })
  .strict();

/** POST /ob/vrp-consents/{id}/funds-confirmation. */
export const vrpFundsRules = z.object({ amount: rules.amount }).strict();
