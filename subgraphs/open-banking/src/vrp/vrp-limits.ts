/*
 * A VRP consent's control parameters and what they allow (issue 51; UK Open Banking's
 * domestic-vrp-consents ControlParameters). Pure: the service reads what the consent's payments
 * used and writes the payment; this file decides. Amounts are integers of minor units (bigint),
 * always in the consent's one currency.
 *
 * Periods reset at UTC midnight of their boundary. A Calendar period lines up with the calendar
 * (a Week starts on Monday, a Half-year on 1 January or 1 July); a Consent period counts from UTC
 * midnight of the consent's valid_from (a Month from the 31st runs to the 30th or 28th/29th of the
 * next month and back to the 31st: the day of month is kept where the month has it). A
 * Calendar-aligned Fortnight has no calendar to line up with and is refused, as the UK standard
 * does.
 */
import { formatMoney, type Currency } from '@gateway/kernel';

export const PERIOD_TYPES = ['Day', 'Week', 'Fortnight', 'Month', 'Half-year', 'Year'] as const;
export type PeriodType = (typeof PERIOD_TYPES)[number];
export const PERIOD_ALIGNMENTS = ['Consent', 'Calendar'] as const;
export type PeriodAlignment = (typeof PERIOD_ALIGNMENTS)[number];

export interface PeriodicLimit {
  periodType: PeriodType;
  periodAlignment: PeriodAlignment;
  /** The most the consent's payments may add up to within one period. */
  amount: bigint;
}

export interface ControlParameters {
  /** The consent's one currency: every amount below is in its minor units. */
  currency: Currency;
  maximumIndividualAmount: bigint;
  periodicLimits: readonly PeriodicLimit[];
  validFrom: Date;
  validTo: Date | null;
}

/** One period: [start, end). */
export interface Period {
  start: Date;
  end: Date;
}

const DAY_MS = 86_400_000;

const midnight = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** UTC midnight `months` months after `anchor` (a UTC midnight), on its day of month or the month's last day. */
function addMonths(anchor: Date, months: number): Date {
  const total = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  return new Date(Date.UTC(year, month, Math.min(anchor.getUTCDate(), daysInMonth(year, month))));
}

const MONTHS: Partial<Record<PeriodType, number>> = { Month: 1, 'Half-year': 6, Year: 12 };
const DAYS: Partial<Record<PeriodType, number>> = { Day: 1, Week: 7, Fortnight: 14 };

/** The period of `limit` that holds `at`, for a consent whose periods count from `validFrom`. */
export function periodOf(
  limit: Pick<PeriodicLimit, 'periodType' | 'periodAlignment'>,
  validFrom: Date,
  at: Date,
): Period {
  const { periodType, periodAlignment } = limit;
  if (periodAlignment === 'Calendar' && periodType === 'Fortnight')
    throw new Error('a Calendar-aligned Fortnight has no calendar to line up with');
  const day = midnight(at);
  const days = DAYS[periodType];
  if (days !== undefined) {
    // Calendar days and weeks: day 0 of the epoch (1970-01-01) was a Thursday; Mondays are 4 days later.
    const anchor = periodAlignment === 'Calendar' ? (days === 7 ? 4 * DAY_MS : 0) : midnight(validFrom).getTime();
    const index = Math.floor((day.getTime() - anchor) / (days * DAY_MS));
    const start = anchor + index * days * DAY_MS;
    return { start: new Date(start), end: new Date(start + days * DAY_MS) };
  }
  const months = MONTHS[periodType]!;
  const anchor = periodAlignment === 'Calendar' ? new Date(Date.UTC(1970, 0, 1)) : midnight(validFrom);
  let index = Math.floor(
    ((at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + at.getUTCMonth() - anchor.getUTCMonth()) / months,
  );
  // A consent period from the 31st has not begun yet on the 5th of the month: step back one.
  while (addMonths(anchor, index * months).getTime() > at.getTime()) index -= 1;
  while (addMonths(anchor, (index + 1) * months).getTime() <= at.getTime()) index += 1;
  return { start: addMonths(anchor, index * months), end: addMonths(anchor, (index + 1) * months) };
}

/** How a limit is named to a TPP and a customer ("Month (Calendar)"); refusals name it so. */
export const limitName = (limit: Pick<PeriodicLimit, 'periodType' | 'periodAlignment'>): string =>
  `${limit.periodType} (${limit.periodAlignment})`;

export type VrpVerdict =
  | { kind: 'accepted' }
  | { kind: 'outside_validity'; detail: string }
  | { kind: 'limit_exceeded'; limit: string; detail: string };

/**
 * May a payment of `amount` be made at `at`, given what the consent's payments (those not
 * FAILED) already used in each periodic limit's current period (`used`, in the order of
 * `periodicLimits`)? Accepted only when it falls within the validity window and every limit holds:
 * the maximum individual amount, and each period's total with this payment added.
 */
export function judgePayment(
  parameters: ControlParameters,
  at: Date,
  amount: bigint,
  used: readonly bigint[],
): VrpVerdict {
  if (at.getTime() < parameters.validFrom.getTime())
    return { kind: 'outside_validity', detail: `the consent is valid from ${parameters.validFrom.toISOString()}` };
  if (parameters.validTo && at.getTime() >= parameters.validTo.getTime())
    return { kind: 'outside_validity', detail: `the consent was valid until ${parameters.validTo.toISOString()}` };
  // Refusals are read by people (the TPP's developer, then its customer): amounts in major units with the currency.
  const money = (minor: bigint) => formatMoney(minor, parameters.currency);
  if (amount > parameters.maximumIndividualAmount)
    return {
      kind: 'limit_exceeded',
      limit: 'maximum_individual_amount',
      detail: `amount: ${money(amount)} is above the maximum individual amount of ${money(parameters.maximumIndividualAmount)}`,
    };
  for (const [index, limit] of parameters.periodicLimits.entries()) {
    const already = used[index] ?? 0n;
    if (already + amount > limit.amount)
      return {
        kind: 'limit_exceeded',
        limit: limitName(limit),
        detail: `amount: ${money(amount)} would bring the ${limitName(limit)} period's total to ${money(already + amount)}, above its limit of ${money(limit.amount)} (${money(limit.amount - already)} remaining)`,
      };
  }
  return { kind: 'accepted' };
}
