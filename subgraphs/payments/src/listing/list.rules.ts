import { rules, z } from '@gateway/kernel';
import { metadataFilterRule } from '../metadata/metadata.rules';

/*
 * The arguments every list takes (page and filters), checked at once before anything is read: a
 * bad value is a VALIDATION_ERROR naming its field as REST spells it (created_from, amount_min),
 * which is how parseInput names camelCase fields.
 */

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;
export const REFERENCE_FILTER_MAX = 128;

const first = z
  .number()
  .int()
  .min(1, `must be between 1 and ${PAGE_SIZE_MAX}`)
  .max(PAGE_SIZE_MAX, `must be between 1 and ${PAGE_SIZE_MAX}`)
  .nullish();
const after = z.string().trim().min(1, 'must not be empty').max(64).nullish();

/** Page arguments only (a list without filters). */
export const pageRules = z.object({ first, after }).strict();

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** A calendar date or a date-time with its offset ("2026-12-01", "2026-12-01T10:00:00Z"); a date alone is midnight UTC. */
export function parseInstant(text: string): Date | null {
  const m = ISO_8601.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return null;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return null;
  const at = new Date(m[4] === undefined ? `${m[1]}-${m[2]}-${m[3]}T00:00:00Z` : text);
  return Number.isNaN(at.getTime()) ? null : at;
}

const instant = z
  .string()
  .trim()
  .transform((text, ctx) => {
    const at = parseInstant(text);
    if (!at) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an ISO 8601 date or date-time with offset, e.g. 2026-12-01T00:00:00Z',
      });
      return z.NEVER;
    }
    return at;
  });

const amountBound = z
  .number()
  .int('must be an integer of minor units')
  .min(0, 'must be 0 or more')
  .max(Number.MAX_SAFE_INTEGER);

/** One of a list's statuses, as its records spell them. */
export const statusRule = <S extends readonly [string, ...string[]]>(statuses: S) =>
  z.enum(statuses, { error: `must be one of ${statuses.join(', ')}` });

/** The filters of a list: created range (from inclusive, to exclusive) and the list's own. */
export function listRules<S extends z.ZodRawShape>(own: S) {
  return z
    .object({ first, after, createdFrom: instant.nullish(), createdTo: instant.nullish(), ...own })
    .strict()
    .superRefine((args, ctx) => {
      const { createdFrom: from, createdTo: to } = args as { createdFrom?: Date | null; createdTo?: Date | null };
      if (from && to && from.getTime() > to.getTime())
        ctx.addIssue({ code: 'custom', path: ['createdFrom'], message: 'must not be after created_to' });
      const { amountMin: min, amountMax: max } = args as { amountMin?: number | null; amountMax?: number | null };
      if (min != null && max != null && min > max)
        ctx.addIssue({ code: 'custom', path: ['amountMin'], message: 'must not be more than amount_max' });
    });
}

/** Filter fields lists share: pick what the list's rows have. */
export const filterFields = {
  reference: rules.text(REFERENCE_FILTER_MAX).nullish(),
  amountMin: amountBound.nullish(),
  amountMax: amountBound.nullish(),
  metadata: metadataFilterRule.nullish(),
  /** An event kind, e.g. payment.completed. */
  event: z
    .string()
    .trim()
    .regex(/^[a-z_]+(\.[a-z_]+)+$/, 'must be an event name, e.g. payment.completed')
    .max(100)
    .nullish(),
};
