import { rules, z } from '@gateway/kernel';
import { filterFields, listRules, statusRule } from '../listing/list.rules';
import { initialMetadataRule } from '../metadata/metadata.rules';
import { DESCRIPTION_MAX, REFERENCE_MAX } from '../session/session.rules';
import { MANDATE_STATUSES } from './mandate.transitions';
import { MANDATE_INTERVALS, parseDate } from './mandate.schedule';

/** POST /recurring/mandates: everything checked before anything is asked or written. */
export const createMandateRules = z
  .object({
    customerAlias: rules.alias,
    amount: rules.amount,
    currency: rules.currency,
    interval: z.enum(MANDATE_INTERVALS, { error: `must be one of ${MANDATE_INTERVALS.join(', ')}` }),
    description: rules.text(DESCRIPTION_MAX).nullish(),
    startDate: z.string().refine((value) => parseDate(value) !== null, 'must be a calendar date, YYYY-MM-DD'),
    metadata: initialMetadataRule.nullish(),
  })
  .strict();
export type CreateMandateRequest = z.infer<typeof createMandateRules>;

/** POST /recurring/mandates/{id}/charge. */
export const chargeMandateRules = z
  .object({ amount: rules.amount, reference: rules.text(REFERENCE_MAX), metadata: initialMetadataRule.nullish() })
  .strict();
export type ChargeMandateRequest = z.infer<typeof chargeMandateRules>;

export const confirmMandateRules = z.object({ otp: rules.otp }).strict();

export const REVOKERS = ['customer', 'bank'] as const;
export const revokeMandateRules = z
  .object({ revokedBy: z.enum(REVOKERS, { error: 'must be customer or bank' }) })
  .strict();

/** A test clock moves forward, a day to ten years at a time. */
export const advanceClockRules = z
  .object({ days: z.number().int().min(1, 'must be between 1 and 3660').max(3660, 'must be between 1 and 3660') })
  .strict();

/** mandates (GET /recurring/mandates): page and filters (a mandate has no reference and one amount: no range). */
export const mandateListRules = listRules({
  status: statusRule(MANDATE_STATUSES).nullish(),
  metadata: filterFields.metadata,
});

/** A charge's statuses as its record shows them (SETTLEMENT_PENDING reads PROCESSING). */
export const PUBLIC_CHARGE_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED'] as const;

/** A mandate's charges (GET /recurring/mandates/{id}/charges): page and filters. */
export const chargeListRules = listRules({
  status: statusRule(PUBLIC_CHARGE_STATUSES).nullish(),
  reference: filterFields.reference,
  metadata: filterFields.metadata,
});
