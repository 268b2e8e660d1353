import { z } from 'zod';
import { csvRow } from '../csv';
import { defineRoute, type GraphQLData, type StreamedAnswer } from '../route';
import { attachmentName } from '../stream-answer';

/**
 * Reports (issue 30): a CSV of the merchant's sessions or refunds over a date range, of any size.
 *
 * Why pages of GraphQL and not a stream from the database: every REST call reaches the platform
 * through the router, which authenticates the key once and signs the principal it hands the
 * subgraphs (router/src/authenticate.ts). A streamed HTTP route on the payments service would be
 * a second door needing its own authentication, rate limits and signing. Instead rest-compat asks
 * the router for keyset pages (paymentSessionsReport / refundsReport: `created_at, id` after the
 * cursor, on the merchant index) and writes each as CSV before asking for the next
 * (stream-answer.ts). Memory stays one page, the client's reading paces the queries, and a client
 * that leaves stops them. Each page is one `read` point of the merchant's budget (2,000 rows a
 * point). bench/reports.ts measures it: 100,000 rows in a few seconds with flat memory.
 */
const PAGE_SIZE = 2_000;

/** What csv.ts does to merchant-given text, as the OpenAPI document says it. */
const FORMULA_GUARD =
  'Text a spreadsheet could run as a formula gets an apostrophe before = + - @ at the start of the cell and right after any , ; tab or line break inside it ' +
  '(and at the start before a tab or line break); a cell holding a , ; tab, line break or quote is quoted. Amounts are numbers and never altered.';

const RANGE_DESCRIPTION = 'ISO 8601 date (YYYY-MM-DD, UTC midnight) or date-time (with an offset, or UTC without one).';
const rangeQuery = z
  .object({
    from: z.string().describe(`Rows created at or after this instant: ${RANGE_DESCRIPTION}`),
    to: z.string().describe(`Rows created before this instant, after from: ${RANGE_DESCRIPTION}`),
  })
  .strict();

/** ISO 8601 in UTC with milliseconds, as every timestamp of the API. */
const iso = (value: string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/** A page of a connection as CSV rows, and the next page's cursor. */
function pageOf(connection: GraphQLData, row: (node: GraphQLData) => unknown[]): { text: string; next: string | null } {
  const text = connection.edges.map((edge: GraphQLData) => csvRow(row(edge.node) as never)).join('');
  return { text, next: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null };
}

const SESSION_COLUMNS = [
  'session_id',
  'created_at',
  'status',
  'amount',
  'currency',
  'amount_refunded',
  'reference',
  'payer_bank',
  'completed_at',
  'failure_code',
  'livemode',
];

const sessionsCsv: StreamedAnswer = {
  contentType: 'text/csv; charset=utf-8',
  filename: ({ query }) => attachmentName('sessions', query.from, query.to),
  head: csvRow(SESSION_COLUMNS),
  cursorVariable: 'after',
  page: ({ paymentSessionsReport }) =>
    pageOf(paymentSessionsReport, (s) => [
      s.id,
      iso(s.createdAt),
      s.status,
      s.amount,
      s.currency,
      s.amountRefunded,
      s.reference,
      s.debtorBank?.handle ?? null,
      iso(s.completedAt),
      s.failureCode,
      s.livemode,
    ]),
  description:
    `One row per session created in [from, to), oldest first; columns ${SESSION_COLUMNS.join(', ')}. ` +
    'Amounts are integer minor units of currency; times ISO 8601 UTC; payer_bank is the payer’s bank handle once known. ' +
    FORMULA_GUARD,
  example:
    csvRow(SESSION_COLUMNS) +
    csvRow([
      'ops_7Qm2',
      '2026-12-01T09:30:00.000Z',
      'COMPLETED',
      2500,
      'LYD',
      0,
      'order-42',
      'wahda',
      '2026-12-01T09:31:12.000Z',
      null,
      true,
    ]),
};

const REFUND_COLUMNS = [
  'refund_id',
  'session_id',
  'created_at',
  'status',
  'amount',
  'currency',
  'reason',
  'reference',
  'failure_code',
  'completed_at',
  'livemode',
];

const refundsCsv: StreamedAnswer = {
  contentType: 'text/csv; charset=utf-8',
  filename: ({ query }) => attachmentName('refunds', query.from, query.to),
  head: csvRow(REFUND_COLUMNS),
  cursorVariable: 'after',
  page: ({ refundsReport }) =>
    pageOf(refundsReport, (r) => [
      r.id,
      r.sessionId,
      iso(r.createdAt),
      r.status,
      r.amount,
      r.currency,
      r.reason,
      r.reference,
      r.failureCode,
      iso(r.completedAt),
      r.livemode,
    ]),
  description:
    `One row per refund created in [from, to), oldest first; columns ${REFUND_COLUMNS.join(', ')}. ` +
    `Amounts are integer minor units of currency; times ISO 8601 UTC. ${FORMULA_GUARD}`,
  example:
    csvRow(REFUND_COLUMNS) +
    csvRow([
      'rfd_3Kp9',
      'ops_7Qm2',
      '2026-12-02T10:00:00.000Z',
      'COMPLETED',
      500,
      'LYD',
      'damaged',
      'rma-7',
      null,
      '2026-12-02T10:00:01.000Z',
      true,
    ]),
};

const REPORT_DESCRIPTION =
  'Streamed as it is read, whatever the range: the file is never held whole, and a client that disconnects stops the reading. ' +
  'A refusal (bad range, bad key) comes before the file, as JSON; a failure after the file began cuts the connection, so an incomplete file never looks complete. ' +
  'The merchant key’s own world only: a test key exports test objects, a live key live ones. ' +
  '400 VALIDATION_ERROR naming from or to when either is missing, not ISO 8601, or to is not after from.';

export const reportRoutes = [
  defineRoute({
    method: 'GET',
    path: '/reports/sessions.csv',
    tag: 'Reports',
    summary: 'Export payment sessions as CSV',
    description: REPORT_DESCRIPTION,
    auth: [['merchantKey']],
    query: rangeQuery,
    operation: `query SessionsReport($from: String!, $to: String!, $first: Int, $after: String) {
  paymentSessionsReport(from: $from, to: $to, first: $first, after: $after) {
    edges { node { id createdAt status amount currency amountRefunded reference debtorBank { handle } completedAt failureCode livemode } }
    pageInfo { hasNextPage endCursor }
  }
}`,
    variables: ({ query }) => ({ from: query.from, to: query.to, first: PAGE_SIZE, after: null }),
    stream: sessionsCsv,
    status: 200,
    errors: ['INVALID_API_KEY', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/reports/refunds.csv',
    tag: 'Reports',
    summary: 'Export refunds as CSV',
    description: REPORT_DESCRIPTION,
    auth: [['merchantKey']],
    query: rangeQuery,
    operation: `query RefundsReport($from: String!, $to: String!, $first: Int, $after: String) {
  refundsReport(from: $from, to: $to, first: $first, after: $after) {
    edges { node { id sessionId createdAt status amount currency reason reference failureCode completedAt livemode } }
    pageInfo { hasNextPage endCursor }
  }
}`,
    variables: ({ query }) => ({ from: query.from, to: query.to, first: PAGE_SIZE, after: null }),
    stream: refundsCsv,
    status: 200,
    errors: ['INVALID_API_KEY', 'FORBIDDEN'],
  }),
];
