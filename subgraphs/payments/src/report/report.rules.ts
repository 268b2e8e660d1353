import { GatewayError, parseInput, z } from '@gateway/kernel';

/** Rows of one report page: large, so a 100,000-row export is a few dozen calls, small enough to stay flat in memory. */
export const REPORT_PAGE_MAX = 5_000;
export const REPORT_PAGE_DEFAULT = 1_000;
/** The daily summary's longest range: a year and a day (a leap year's 366 days). */
export const SUMMARY_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** YYYY-MM-DD, or a date-time with minutes, optional seconds and fraction, and an optional offset (none: UTC). */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * An ISO 8601 date (UTC midnight) or date-time as an instant. Date.parse alone would read a
 * date-time without offset in the server's time zone and roll "2026-02-30" over to March.
 */
export function parseInstant(value: string): Date | undefined {
  const match = ISO_8601.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, offset] = match;
  const check = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (check.getUTCMonth() !== Number(month) - 1 || check.getUTCDate() !== Number(day)) return undefined;
  if (Number(hour ?? 0) > 23 || Number(minute ?? 0) > 59 || Number(second ?? 0) > 59) return undefined;
  const text = hour === undefined ? `${value}T00:00:00Z` : offset ? value : `${value}Z`;
  const instant = new Date(text);
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}

const instant = z.string().transform((value, ctx) => {
  const parsed = parseInstant(value.trim());
  if (!parsed) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time' });
    return z.NEVER;
  }
  return parsed;
});

/** A report's or summary's range: from inclusive, to exclusive, from before to. */
export interface ReportRange {
  from: Date;
  to: Date;
}

const rangeRules = z.object({ from: instant, to: instant }).refine((range) => range.from < range.to, {
  path: ['to'],
  message: 'must be after from',
});

export function parseRange(args: { from: string; to: string }): ReportRange {
  return parseInput(rangeRules, args);
}

/** The daily summary's range: also at most SUMMARY_MAX_DAYS long, so its answer stays small. */
export function parseSummaryRange(args: { from: string; to: string }): ReportRange {
  const range = parseRange(args);
  if (range.to.getTime() - range.from.getTime() > SUMMARY_MAX_DAYS * DAY_MS)
    throw new GatewayError('VALIDATION_ERROR', `to: the range is at most ${SUMMARY_MAX_DAYS} days`);
  return range;
}

export const reportPageRules = z.object({
  first: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(REPORT_PAGE_MAX, `must be at most ${REPORT_PAGE_MAX}`)
    .nullish(),
  after: z.string().min(1, 'must not be empty').nullish(),
});
