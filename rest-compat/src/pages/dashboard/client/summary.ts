/**
 * The home view's figures from the API's daily summary (dailySummary): per currency, one point per
 * UTC day of the range, days without activity as zeros (the API sends only days that had some).
 * No DOM here, so specs run it in node.
 */

export interface FailureCount {
  code: string;
  count: number;
}

/** One day and currency as the API answers it. Money in minor units, as PaymentSession.amount. */
export interface DailySummary {
  date: string;
  currency: string;
  sessionsCreated: number;
  paymentsCompleted: number;
  paymentsFailed: number;
  volume: number;
  refundsCompleted: number;
  refundedAmount: number;
  failures: FailureCount[];
}

/** One currency's month: a value per day (same order as `days`) and the totals shown beside the charts. */
export interface CurrencySeries {
  currency: string;
  days: string[];
  volume: number[];
  completed: number[];
  failed: number[];
  /** completed / (completed + failed) per day, null on a day without a finished attempt (no bar, not 0 %). */
  successRate: Array<number | null>;
  totals: {
    volume: number;
    completed: number;
    failed: number;
    sessionsCreated: number;
    refunds: number;
    refundedAmount: number;
    /** Over the whole range; null without a finished attempt. */
    successRate: number | null;
  };
  /** Failure codes over the range, most frequent first. */
  failures: FailureCount[];
}

const DAY_MS = 86_400_000;

/** "YYYY-MM-DD" of a UTC instant. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * The last `days` UTC days up to and including today's: `from` is the first day, `to` the day
 * after today (inclusive from, exclusive to, as the API's ranges are), both YYYY-MM-DD.
 */
export function lastDays(now: Date, days: number): { from: string; to: string; dates: string[] } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = today - (days - 1) * DAY_MS;
  const dates = Array.from({ length: days }, (_, index) => utcDay(new Date(first + index * DAY_MS)));
  return { from: dates[0]!, to: utcDay(new Date(today + DAY_MS)), dates };
}

const ratio = (completed: number, failed: number): number | null =>
  completed + failed === 0 ? null : completed / (completed + failed);

/** The API's rows grouped per currency (most volume first), each filled out to every day of `dates`. */
export function seriesByCurrency(rows: readonly DailySummary[], dates: readonly string[]): CurrencySeries[] {
  const index = new Map(dates.map((date, position) => [date, position]));
  const byCurrency = new Map<string, CurrencySeries>();
  const failureCounts = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const position = index.get(row.date);
    if (position === undefined) continue;
    let series = byCurrency.get(row.currency);
    if (!series) {
      const zeros = () => dates.map(() => 0);
      series = {
        currency: row.currency,
        days: [...dates],
        volume: zeros(),
        completed: zeros(),
        failed: zeros(),
        successRate: [],
        totals: {
          volume: 0,
          completed: 0,
          failed: 0,
          sessionsCreated: 0,
          refunds: 0,
          refundedAmount: 0,
          successRate: null,
        },
        failures: [],
      };
      byCurrency.set(row.currency, series);
      failureCounts.set(row.currency, new Map());
    }
    series.volume[position]! += row.volume;
    series.completed[position]! += row.paymentsCompleted;
    series.failed[position]! += row.paymentsFailed;
    series.totals.volume += row.volume;
    series.totals.completed += row.paymentsCompleted;
    series.totals.failed += row.paymentsFailed;
    series.totals.sessionsCreated += row.sessionsCreated;
    series.totals.refunds += row.refundsCompleted;
    series.totals.refundedAmount += row.refundedAmount;
    const counts = failureCounts.get(row.currency)!;
    for (const failure of row.failures) counts.set(failure.code, (counts.get(failure.code) ?? 0) + failure.count);
  }
  for (const series of byCurrency.values()) {
    series.successRate = series.completed.map((completed, day) => ratio(completed, series.failed[day]!));
    series.totals.successRate = ratio(series.totals.completed, series.totals.failed);
    series.failures = [...failureCounts.get(series.currency)!]
      .map(([code, count]) => ({ code, count }))
      .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
  }
  return [...byCurrency.values()].sort(
    (a, b) => b.totals.volume - a.totals.volume || a.currency.localeCompare(b.currency),
  );
}

/** 0.8333 -> "83.3 %"; null (nothing finished) -> "—". */
export const formatRate = (rate: number | null): string => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);

/** Minor units as a plain major-unit number for a chart axis (a chart needs numbers; the figures beside it use formatAmount). */
export const toMajor = (minor: number, exponent: number): number => minor / 10 ** exponent;
