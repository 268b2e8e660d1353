import { invalid } from '@gateway/kernel';

export const COUNT_DEFAULT = 50;
export const COUNT_MAX = 500;
/** Without fromDate, the window reaches this many days back from toDate (toDate included). */
export const DEFAULT_WINDOW_DAYS = 90;

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 date-time, with or without seconds, fraction and offset (UK Open Banking sends both
// 2024-03-01T10:43:07+00:00 and 2024-03-01T10:43:07).
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?$/i;

/** A bound of the window: its calendar date, and its instant when given as a date-time. */
interface Bound {
  date: string;
  instant: number | null;
}

function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const at = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return at.toISOString().slice(0, 10) === value;
}

/**
 * Both ISO 8601 forms the contract accepts: a date (2024-03-01) or a date-time
 * (2024-03-01T10:43:07Z, with any offset or none). Booking dates have day precision, so a
 * date-time counts for its calendar date as written (the offset it is written in).
 */
function boundOf(field: string, value: string): Bound {
  const trimmed = value.trim();
  if (isCalendarDate(trimmed)) return { date: trimmed, instant: null };
  const match = DATE_TIME.exec(trimmed);
  if (!match || !isCalendarDate(match[1]!))
    throw invalid(field, 'must be an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDThh:mm:ssZ)');
  const zoned = match[5] ? trimmed : `${trimmed}Z`;
  return { date: match[1]!, instant: Date.parse(zoned.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) };
}

const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

export interface TransactionWindow {
  /** YYYY-MM-DD, inclusive. */
  fromDate: string;
  /** YYYY-MM-DD, inclusive. */
  toDate: string;
  count: number;
}

/**
 * The query of a transactions read: toDate defaults to today (UTC), fromDate to DEFAULT_WINDOW_DAYS
 * before toDate, count to 50 (at most 500). fromDate after toDate is a VALIDATION_ERROR.
 */
export function transactionWindowOf(
  args: { fromDate?: string | null; toDate?: string | null; count?: number | null },
  now = new Date(),
): TransactionWindow {
  const count = args.count ?? COUNT_DEFAULT;
  if (!Number.isInteger(count) || count < 1 || count > COUNT_MAX)
    throw invalid('count', `must be an integer from 1 to ${COUNT_MAX}`);
  const to: Bound = args.toDate != null ? boundOf('toDate', args.toDate) : { date: dayOf(now), instant: null };
  const from: Bound =
    args.fromDate != null
      ? boundOf('fromDate', args.fromDate)
      : { date: dayOf(new Date(Date.parse(`${to.date}T00:00:00Z`) - DEFAULT_WINDOW_DAYS * DAY_MS)), instant: null };
  const after =
    from.date > to.date ||
    (from.date === to.date && from.instant !== null && to.instant !== null && from.instant > to.instant);
  if (after) throw invalid('fromDate', `is after toDate (${from.date} > ${to.date})`);
  return { fromDate: from.date, toDate: to.date, count };
}
