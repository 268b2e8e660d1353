import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { parseInput } from '@gateway/kernel';
import { createdRange, keysetPage, type Page } from '../listing/keyset-page';
import { RefundEntity } from '../refund/refund.entity';
import { PaymentSessionEntity } from '../session/session.entity';
import { parseRange, parseSummaryRange, REPORT_PAGE_DEFAULT, reportPageRules } from './report.rules';

/** Whose rows a report reads: the calling merchant's, in its key's world. */
export interface ReportOwner {
  merchantId: string;
  livemode: boolean;
}

export interface ReportPageArgs {
  from: string;
  to: string;
  first?: number | null;
  after?: string | null;
}

/** A report's page: the lists' page, oldest first. */
export type ReportPage<T> = Page<T>;

/** One (day, currency) of the daily summary: figures of the things that happened that UTC day. */
export interface DailyFigures {
  date: string;
  currency: string;
  sessionsCreated: number;
  paymentsCompleted: number;
  volume: number;
  paymentsFailed: number;
  paymentsExpired: number;
  refundsCompleted: number;
  refundedAmount: number;
  failures: Array<{ code: string; count: number }>;
}

/**
 * Every dated thing of the summary, counted per UTC day, currency, kind and failure code in one
 * statement: a session gives up to four (created, completed, failed, expired: a PENDING one past
 * expires_at counts as expired then, as every reader sees it, session.type.ts effectiveStatus), a
 * COMPLETED refund one. `created_at < to` bounds the scan by the merchant index (nothing of a
 * session happens before it is created); what comes back is a few rows per day, never the rows.
 */
const DAILY_SUMMARY = `
select to_char(e."at" at time zone 'UTC', 'YYYY-MM-DD') as "day", s."currency", e."kind", e."code",
       count(*)::int as "count", sum(e."amount")::text as "amount"
from "payments"."payment_sessions" s
cross join lateral (values
  ('created', s."created_at", null::text, 0::bigint),
  ('completed', s."completed_at", null, s."amount"),
  ('failed', s."failed_at", coalesce(s."failure_code", 'UNKNOWN'), 0),
  ('expired', coalesce(s."expired_at", case when s."status" = 'PENDING' and s."checkout_checks_in_flight" = 0
     and s."expires_at" <= now() then s."expires_at" end), null, 0)
) as e("kind", "at", "code", "amount")
where s."merchant_id" = ? and s."livemode" = ? and s."created_at" < ? and e."at" >= ? and e."at" < ?
group by 1, 2, 3, 4
union all
select to_char(r."completed_at" at time zone 'UTC', 'YYYY-MM-DD'), r."currency", 'refunded', null,
       count(*)::int, sum(r."amount")::text
from "payments"."refunds" r
where r."merchant_id" = ? and r."livemode" = ? and r."status" = 'COMPLETED' and r."completed_at" >= ? and r."completed_at" < ?
group by 1, 2
order by 1, 2`;

interface SummaryRow {
  day: string;
  currency: string;
  kind: 'created' | 'completed' | 'failed' | 'expired' | 'refunded';
  code: string | null;
  count: number;
  amount: string;
}

/**
 * Reports read a merchant's sessions and refunds in its world over a date range: CSV exports
 * are read in keyset pages (rest-compat streams them, routes/reports.ts), the daily summary is
 * aggregated by the database. Reading only: the tables' owners are session/ and refund/.
 */
export class ReportService {
  /** Sessions created in [from, to), oldest first, continuing strictly after the cursor session. */
  sessionsPage(em: EntityManager, owner: ReportOwner, args: ReportPageArgs): Promise<ReportPage<PaymentSessionEntity>> {
    return this.page(em, PaymentSessionEntity, owner, args);
  }

  /** Refunds created in [from, to), oldest first, continuing strictly after the cursor refund. */
  refundsPage(em: EntityManager, owner: ReportOwner, args: ReportPageArgs): Promise<ReportPage<RefundEntity>> {
    return this.page(em, RefundEntity, owner, args);
  }

  /** Per UTC day and currency, what happened in [from, to) (at most SUMMARY_MAX_DAYS); days without anything are left out. */
  async dailySummary(
    em: EntityManager,
    owner: ReportOwner,
    args: { from: string; to: string },
  ): Promise<DailyFigures[]> {
    const { from, to } = parseSummaryRange(args);
    const { merchantId, livemode } = owner;
    const rows: SummaryRow[] = await em.execute(DAILY_SUMMARY, [
      ...[merchantId, livemode, to, from, to],
      ...[merchantId, livemode, from, to],
    ]);
    const days = new Map<string, DailyFigures>();
    for (const row of rows) {
      const key = `${row.day} ${row.currency}`;
      let figures = days.get(key);
      if (!figures) {
        figures = { ...EMPTY_DAY, date: row.day, currency: row.currency, failures: [] };
        days.set(key, figures);
      }
      addRow(figures, row);
    }
    return [...days.values()];
  }

  /** In the owner's world and range, strictly after the cursor row (keyset on created_at, id). */
  /** A page of the owner's rows created in the range, oldest first: the lists' one keyset paging. */
  private page<E extends PaymentSessionEntity | RefundEntity>(
    em: EntityManager,
    entity: new () => E,
    owner: ReportOwner,
    args: ReportPageArgs,
  ): Promise<ReportPage<E>> {
    const range = parseRange(args);
    const page = parseInput(reportPageRules, args);
    return keysetPage<E>(em, entity, {
      scope: { merchantId: owner.merchantId, livemode: owner.livemode } as FilterQuery<E>,
      fixed: createdRange<E>({ createdFrom: range.from, createdTo: range.to }),
      first: page.first ?? REPORT_PAGE_DEFAULT,
      after: page.after,
      order: 'oldest',
    });
  }
}

const EMPTY_DAY = {
  sessionsCreated: 0,
  paymentsCompleted: 0,
  volume: 0,
  paymentsFailed: 0,
  paymentsExpired: 0,
  refundsCompleted: 0,
  refundedAmount: 0,
};

function addRow(figures: DailyFigures, row: SummaryRow): void {
  switch (row.kind) {
    case 'created':
      figures.sessionsCreated += row.count;
      return;
    case 'completed':
      figures.paymentsCompleted += row.count;
      figures.volume += Number(row.amount);
      return;
    case 'failed':
      figures.paymentsFailed += row.count;
      figures.failures.push({ code: row.code ?? 'UNKNOWN', count: row.count });
      return;
    case 'expired':
      figures.paymentsExpired += row.count;
      return;
    case 'refunded':
      figures.refundsCompleted += row.count;
      figures.refundedAmount += Number(row.amount);
  }
}
