import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { merchantLivemode } from '@gateway/kernel';
import { pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { RefundConnection, toRefund } from '../refund/refund.type';
import { PaymentSessionConnection, toPaymentSession } from '../session/session.type';
import { REPORT_PAGE_DEFAULT, REPORT_PAGE_MAX, SUMMARY_MAX_DAYS } from './report.rules';
import type { ReportOwner, ReportService } from './report.service';
import { DailySummary, toDailySummary } from './report.type';

const RANGE = 'ISO 8601 date (YYYY-MM-DD, UTC midnight) or date-time (no offset: UTC)';
const FIRST = `Page size, 1-${REPORT_PAGE_MAX} (default ${REPORT_PAGE_DEFAULT}).`;

/** The merchant key's own rows, in its world (a test key never reads live rows, nor the reverse). */
function ownerOf(context: SubgraphContext): ReportOwner {
  const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
  return { merchantId: merchant.id, livemode: merchantLivemode(merchant) };
}

/**
 * Reports (issue 30): the pages GET /reports/sessions.csv and /reports/refunds.csv stream (rest-compat
 * asks page after page and writes CSV as it goes, so authentication stays at the router and no
 * report is ever held whole), and the daily summary the dashboard charts.
 */
export function createReportResolver(service: ReportService) {
  @Resolver()
  class ReportResolver {
    @Query(() => PaymentSessionConnection, {
      description:
        "The merchant's sessions created in [from, to), oldest first, in large keyset pages: what GET /reports/sessions.csv streams. " +
        'Errors: VALIDATION_ERROR (from, to, first, after).',
    })
    async paymentSessionsReport(
      @Arg('from', { description: `Created at or after: ${RANGE}.` }) from: string,
      @Arg('to', { description: `Created before (after from): ${RANGE}.` }) to: string,
      @Arg('first', () => Int, { nullable: true, description: FIRST }) first: number | null,
      @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page.' })
      after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentSessionConnection> {
      const page = await service.sessionsPage(context.em, ownerOf(context), { from, to, first, after });
      const now = new Date();
      const edges = page.rows.map((session) => ({ cursor: session.id, node: toPaymentSession(session, now) }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Query(() => RefundConnection, {
      description:
        "The merchant's refunds created in [from, to), oldest first, in large keyset pages: what GET /reports/refunds.csv streams. " +
        'Errors: VALIDATION_ERROR (from, to, first, after).',
    })
    async refundsReport(
      @Arg('from', { description: `Created at or after: ${RANGE}.` }) from: string,
      @Arg('to', { description: `Created before (after from): ${RANGE}.` }) to: string,
      @Arg('first', () => Int, { nullable: true, description: FIRST }) first: number | null,
      @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page.' })
      after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<RefundConnection> {
      const page = await service.refundsPage(context.em, ownerOf(context), { from, to, first, after });
      const edges = page.rows.map((refund) => ({ cursor: refund.id, node: toRefund(refund) }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Query(() => [DailySummary], {
      description:
        "The merchant's figures per UTC day and currency over [from, to) (the merchant key, its world): sessions created, payments completed and their volume, " +
        `failed and expired, the success rate, refunds completed and their amount, failures by code. Days without any of these are left out. At most ${SUMMARY_MAX_DAYS} days. ` +
        'Errors: VALIDATION_ERROR (from, to).',
    })
    async dailySummary(
      @Arg('from', { description: `From (inclusive): ${RANGE}.` }) from: string,
      @Arg('to', { description: `To (exclusive, after from): ${RANGE}.` }) to: string,
      @Ctx() context: SubgraphContext,
    ): Promise<DailySummary[]> {
      return (await service.dailySummary(context.em, ownerOf(context), { from, to })).map(toDailySummary);
    }
  }
  return ReportResolver;
}
