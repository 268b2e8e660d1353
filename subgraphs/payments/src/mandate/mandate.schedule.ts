/**
 * When a mandate may be charged (API-CONTRACT "Mandates"): periods counted from start_date, one
 * charge per period. Weekly: 7 days. Monthly: calendar months on the start's day of the month,
 * clamped to the month's length (a start on the 31st charges on the 30th in April, the 28th or
 * 29th in February). Yearly: the same date each year (29 February charges on the 28th in other
 * years). Dates are calendar dates (YYYY-MM-DD, UTC): a period starts at 00:00 UTC of its date.
 * Pure functions, so every rule is tested on its own.
 */

export const MANDATE_INTERVALS = ['weekly', 'monthly', 'yearly'] as const;
export type MandateInterval = (typeof MANDATE_INTERVALS)[number];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date as days since 1970-01-01 (UTC). */
type Day = number;

const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' -> day number, or null when it is not a real calendar date. */
export function parseDate(text: string): Day | null {
  const match = DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const back = new Date(time);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return time / DAY_MS;
}

export const formatDate = (day: Day): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The calendar date (UTC) of an instant. */
export const dayOf = (instant: Date): Day => Math.floor(instant.getTime() / DAY_MS);

const daysInMonth = (year: number, monthIndex: number): number =>
  new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();

/** `months` calendar months after `start`, on the start's day clamped to that month's length. */
function addMonths(start: Day, months: number): Day {
  const date = new Date(start * DAY_MS);
  const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const monthIndex = total - year * 12;
  return Date.UTC(year, monthIndex, Math.min(date.getUTCDate(), daysInMonth(year, monthIndex))) / DAY_MS;
}

/** The first day of period `index` (0 is the one starting at start_date). */
export function periodStart(start: Day, interval: MandateInterval, index: number): Day {
  if (interval === 'weekly') return start + 7 * index;
  return addMonths(start, interval === 'monthly' ? index : 12 * index);
}

/** The period `today` falls in, or null before start_date. */
export function periodOf(
  start: Day,
  interval: MandateInterval,
  today: Day,
): { index: number; start: Day; end: Day } | null {
  if (today < start) return null;
  let index: number;
  if (interval === 'weekly') index = Math.floor((today - start) / 7);
  else {
    const from = new Date(start * DAY_MS);
    const to = new Date(today * DAY_MS);
    const months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
    index = interval === 'monthly' ? months : Math.floor(months / 12);
    // The month (or year) is reached, but not yet its charge day.
    if (periodStart(start, interval, index) > today) index -= 1;
  }
  return { index, start: periodStart(start, interval, index), end: periodStart(start, interval, index + 1) };
}

/**
 * The date from which the next charge may be made: start_date before it comes; the current
 * period's first day while that period has no charge; otherwise the next period's.
 */
export function nextChargeDate(start: Day, interval: MandateInterval, today: Day, currentPeriodCharged: boolean): Day {
  const period = periodOf(start, interval, today);
  if (!period) return start;
  return currentPeriodCharged ? period.end : period.start;
}
