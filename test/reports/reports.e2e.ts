import { call, expectError } from '@gateway/rest-compat/testing';
import { gql } from '../support/graphql';
import { bearer } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { seedManySessions, seedRefund, seedSessions } from './report-seed';

/**
 * Reports (issue 30 item 5): GET /reports/sessions.csv and /reports/refunds.csv streamed page by
 * page through the router, and GraphQL dailySummary, on rows at known times.
 */
describe('reports', () => {
  let t: TestPlatform;
  let base: string;
  let live: { merchantId: string; apiKey: string };
  let testShop: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };

  const csv = (apiKey: string, path: string, signal?: AbortSignal) =>
    fetch(`${base}${path}`, { headers: bearer(apiKey), signal });
  const lines = (text: string) => text.split('\r\n').slice(0, -1);

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    live = await t.seed.createMerchant({ name: 'Live Shop' });
    testShop = await t.seed.createMerchant({ name: 'Test Shop', mode: 'test' });
    other = await t.seed.createMerchant({ name: 'Other Shop' });
    const knex = t.platform.db.knex;
    const mine = { merchantId: live.merchantId, livemode: true };
    await seedSessions(knex, [
      {
        ...mine,
        id: 'ops_rep01',
        status: 'COMPLETED',
        amount: 2_500,
        amountRefunded: 500,
        createdAt: '2026-03-01T09:00:00Z',
        completedAt: '2026-03-01T09:05:00Z',
        reference: 'order,"42"',
        debtorBank: 'wahda',
      },
      {
        ...mine,
        id: 'ops_rep02',
        status: 'FAILED',
        amount: 1_000,
        createdAt: '2026-03-01T10:00:00Z',
        failedAt: '2026-03-01T10:01:00Z',
        failureCode: 'INSUFFICIENT_FUNDS',
        reference: '=HYPERLINK("http://evil")',
      },
      // Created on the first day, paid on the second.
      {
        ...mine,
        id: 'ops_rep03',
        status: 'COMPLETED',
        amount: 4_000,
        // A spreadsheet splitting on ; saw the cell =2+5 here (issue 46).
        reference: 'x;=2+5;',
        createdAt: '2026-03-01T23:59:59Z',
        completedAt: '2026-03-02T00:00:30Z',
      },
      {
        ...mine,
        id: 'ops_rep04',
        status: 'FAILED',
        amount: 700,
        createdAt: '2026-03-02T08:00:00Z',
        failedAt: '2026-03-02T08:01:00Z',
        failureCode: 'OTP_INVALID',
      },
      {
        ...mine,
        id: 'ops_rep05',
        status: 'FAILED',
        amount: 800,
        createdAt: '2026-03-02T09:00:00Z',
        failedAt: '2026-03-02T09:01:00Z',
        failureCode: 'INSUFFICIENT_FUNDS',
      },
      {
        ...mine,
        id: 'ops_rep06',
        status: 'EXPIRED',
        amount: 900,
        createdAt: '2026-03-02T10:00:00Z',
        expiredAt: '2026-03-02T10:15:00Z',
      },
      {
        ...mine,
        id: 'ops_rep07',
        status: 'COMPLETED',
        amount: 1_500,
        currency: 'USD',
        createdAt: '2026-03-02T11:00:00Z',
        completedAt: '2026-03-02T11:01:00Z',
      },
      // At `to` exactly: outside [from, to).
      { ...mine, id: 'ops_rep08', status: 'PENDING', amount: 100, createdAt: '2026-03-03T00:00:00Z' },
      {
        merchantId: testShop.merchantId,
        livemode: false,
        id: 'ops_rep09',
        status: 'COMPLETED',
        amount: 9_999,
        createdAt: '2026-03-01T12:00:00Z',
        completedAt: '2026-03-01T12:01:00Z',
      },
      {
        merchantId: other.merchantId,
        livemode: true,
        id: 'ops_rep10',
        status: 'COMPLETED',
        amount: 3_333,
        createdAt: '2026-03-01T12:00:00Z',
        completedAt: '2026-03-01T12:01:00Z',
      },
    ]);
    await seedRefund(knex, {
      ...mine,
      id: 'rfd_rep01',
      sessionId: 'ops_rep01',
      amount: 500,
      status: 'COMPLETED',
      createdAt: '2026-03-02T12:00:00Z',
      completedAt: '2026-03-02T12:00:01Z',
      reason: '+cash back',
      reference: 'rma-1',
    });
    await seedRefund(knex, {
      ...mine,
      id: 'rfd_rep02',
      sessionId: 'ops_rep03',
      amount: 200,
      status: 'FAILED',
      createdAt: '2026-03-02T13:00:00Z',
      failureCode: 'CBS_ERROR',
      // Pasted as tab-separated, the second cell was a formula (issue 46).
      reason: 'late\t=1+1',
    });
  });
  afterAll(async () => {
    await t.stop();
  });

  it("streams the merchant's sessions of the range as CSV: quoting, the formula guard, minor units and UTC times", async () => {
    const answer = await csv(live.apiKey, '/reports/sessions.csv?from=2026-03-01&to=2026-03-03');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="sessions_2026-03-01_2026-03-03.csv"');
    const rows = lines(await answer.text());
    expect(rows).toEqual([
      'session_id,created_at,status,amount,currency,amount_refunded,reference,payer_bank,completed_at,failure_code,livemode',
      'ops_rep01,2026-03-01T09:00:00.000Z,COMPLETED,2500,LYD,500,"order,""42""",wahda,2026-03-01T09:05:00.000Z,,true',
      `ops_rep02,2026-03-01T10:00:00.000Z,FAILED,1000,LYD,0,"'=HYPERLINK(""http://evil"")",,,INSUFFICIENT_FUNDS,true`,
      `ops_rep03,2026-03-01T23:59:59.000Z,COMPLETED,4000,LYD,0,"x;'=2+5;",,2026-03-02T00:00:30.000Z,,true`,
      'ops_rep04,2026-03-02T08:00:00.000Z,FAILED,700,LYD,0,,,,OTP_INVALID,true',
      'ops_rep05,2026-03-02T09:00:00.000Z,FAILED,800,LYD,0,,,,INSUFFICIENT_FUNDS,true',
      'ops_rep06,2026-03-02T10:00:00.000Z,EXPIRED,900,LYD,0,,,,,true',
      'ops_rep07,2026-03-02T11:00:00.000Z,COMPLETED,1500,USD,0,,,2026-03-02T11:01:00.000Z,,true',
    ]);

    // Date-times with an offset; from inclusive, to exclusive.
    const narrow = await csv(
      live.apiKey,
      `/reports/sessions.csv?from=${encodeURIComponent('2026-03-01T10:00:00+01:00')}&to=2026-03-01T10:00:00Z`,
    );
    expect(lines(await narrow.text()).map((row) => row.split(',')[0])).toEqual(['session_id', 'ops_rep01']);
  });

  it('streams refunds as CSV, each merchant and world seeing only its own', async () => {
    const refunds = lines(await (await csv(live.apiKey, '/reports/refunds.csv?from=2026-03-01&to=2026-04-01')).text());
    expect(refunds).toEqual([
      'refund_id,session_id,created_at,status,amount,currency,reason,reference,failure_code,completed_at,livemode',
      "rfd_rep01,ops_rep01,2026-03-02T12:00:00.000Z,COMPLETED,500,LYD,'+cash back,rma-1,,2026-03-02T12:00:01.000Z,true",
      `rfd_rep02,ops_rep03,2026-03-02T13:00:00.000Z,FAILED,200,LYD,"late\t'=1+1",,CBS_ERROR,,true`,
    ]);
    const ids = async (apiKey: string, path: string) =>
      lines(await (await csv(apiKey, path)).text())
        .slice(1)
        .map((row) => row.split(',')[0]);
    const march = '?from=2026-03-01&to=2026-04-01';
    expect(await ids(testShop.apiKey, `/reports/sessions.csv${march}`)).toEqual(['ops_rep09']);
    expect(lines(await (await csv(testShop.apiKey, `/reports/sessions.csv${march}`)).text())[1]).toMatch(/,false$/);
    expect(await ids(other.apiKey, `/reports/sessions.csv${march}`)).toEqual(['ops_rep10']);
    expect(await ids(testShop.apiKey, `/reports/refunds.csv${march}`)).toEqual([]);
    expect(await ids(other.apiKey, `/reports/refunds.csv${march}`)).toEqual([]);
  });

  it('refuses a bad range with 400 VALIDATION_ERROR naming the field, and a missing key with 401', async () => {
    const get = (query: string, headers = bearer(live.apiKey)) =>
      call(base, 'GET', `/reports/sessions.csv${query}`, { headers });
    const refused = async (query: string, field: string) => {
      const answer = await get(query);
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error.detail).toMatch(new RegExp(`^${field}:`));
    };
    await refused('?to=2026-03-03', 'from');
    await refused('?from=2026-03-01', 'to');
    await refused('?from=yesterday&to=2026-03-03', 'from');
    await refused('?from=2026-02-30&to=2026-03-03', 'from');
    await refused('?from=2026-03-01&to=2026-03-01', 'to');
    await refused('?from=2026-03-02&to=2026-03-01', 'to');
    await refused('?from=2026-03-01&to=2026-03-02&limit=5', 'limit');
    const refunds = await call(base, 'GET', '/reports/refunds.csv?from=2026-03-01T25:00&to=2026-03-02', {
      headers: bearer(live.apiKey),
    });
    expectError(refunds, 400, 'VALIDATION_ERROR');
    expect(refunds.body.error.detail).toMatch(/^from:/);
    expect((await get('?from=2026-03-01&to=2026-03-03', {})).status).toBe(401);
    expect((await get('?from=2026-03-01&to=2026-03-03', bearer('mk_live_wrong'))).status).toBe(401);
  });

  it('streams a report of many pages whole and in order', async () => {
    const many = await t.seed.createMerchant({ name: 'Busy Shop' });
    await seedManySessions(t.platform.db.knex, many.merchantId, true, 4_500, '2026-05-01T00:00:00Z', 'ops_many');
    const rows = lines(await (await csv(many.apiKey, '/reports/sessions.csv?from=2026-05-01&to=2026-06-01')).text());
    expect(rows).toHaveLength(4_501);
    const ids = rows.slice(1).map((row) => row.split(',')[0]);
    expect(ids[0]).toBe('ops_many00000001');
    expect(ids.at(-1)).toBe('ops_many00004500');
    expect(new Set(ids).size).toBe(4_500);
    expect([...ids].sort()).toEqual(ids);
  });

  it('stops asking for pages when the client goes away mid-file', async () => {
    const big = await t.seed.createMerchant({ name: 'Big Shop' });
    await seedManySessions(t.platform.db.knex, big.merchantId, true, 40_000, '2026-06-01T00:00:00Z', 'ops_big');
    const pagesAsked = async () => {
      const text = await (await fetch(`${t.platform.routerUrl}/metrics`)).text();
      return [...text.matchAll(/^router_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)]
        .filter(([, labels]) => labels!.includes('operation="SessionsReport"'))
        .reduce((sum, [, , n]) => sum + Number(n), 0);
    };
    const before = await pagesAsked();
    const aborter = new AbortController();
    const answer = await csv(big.apiKey, '/reports/sessions.csv?from=2026-06-01&to=2026-07-01', aborter.signal);
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    await reader.read();
    aborter.abort();
    await reader.cancel().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const asked = (await pagesAsked()) - before;
    // 40,000 rows are 20 pages: the first, and at most the few read ahead before the socket closed.
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThan(6);
    expect(await pagesAsked()).toBe(before + asked);
    if (process.env.DATABASE_URL) {
      const { rows } = await t.platform.db.knex.raw(
        `select count(*)::int as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and query ilike '%payment_sessions%'`,
      );
      expect(rows[0].n).toBe(0);
    }
    // The pool is free: the next report is answered at once.
    const after = await csv(big.apiKey, '/reports/sessions.csv?from=2026-06-01&to=2026-06-01T00:00:10Z');
    expect(lines(await after.text())).toHaveLength(10);
  });

  it('sums each UTC day and currency in dailySummary', async () => {
    const summary = gql<{ dailySummary: Array<Record<string, unknown>> }, { from: string; to: string }>(`
      query Summary($from: String!, $to: String!) {
        dailySummary(from: $from, to: $to) {
          date currency sessionsCreated paymentsCompleted volume paymentsFailed paymentsExpired paymentsAttempted
          successRate refundsCompleted refundedAmount failures { code count }
        }
      }`);
    const { dailySummary } = await t.execute(summary, { from: '2026-03-01', to: '2026-03-03' }, bearer(live.apiKey));
    expect(dailySummary).toEqual([
      {
        date: '2026-03-01',
        currency: 'LYD',
        sessionsCreated: 3,
        paymentsCompleted: 1,
        volume: 2_500,
        paymentsFailed: 1,
        paymentsExpired: 0,
        paymentsAttempted: 2,
        successRate: 0.5,
        refundsCompleted: 0,
        refundedAmount: 0,
        failures: [{ code: 'INSUFFICIENT_FUNDS', count: 1 }],
      },
      {
        date: '2026-03-02',
        currency: 'LYD',
        sessionsCreated: 3,
        paymentsCompleted: 1,
        volume: 4_000,
        paymentsFailed: 2,
        paymentsExpired: 1,
        paymentsAttempted: 3,
        successRate: 1 / 3,
        refundsCompleted: 1,
        refundedAmount: 500,
        failures: [
          { code: 'INSUFFICIENT_FUNDS', count: 1 },
          { code: 'OTP_INVALID', count: 1 },
        ],
      },
      {
        date: '2026-03-02',
        currency: 'USD',
        sessionsCreated: 1,
        paymentsCompleted: 1,
        volume: 1_500,
        paymentsFailed: 0,
        paymentsExpired: 0,
        paymentsAttempted: 1,
        successRate: 1,
        refundsCompleted: 0,
        refundedAmount: 0,
        failures: [],
      },
    ]);
    // The test world and another merchant see only their own.
    const theirs = await t.execute(summary, { from: '2026-03-01', to: '2026-03-03' }, bearer(testShop.apiKey));
    expect(theirs.dailySummary).toEqual([
      expect.objectContaining({ date: '2026-03-01', sessionsCreated: 1, paymentsCompleted: 1, volume: 9_999 }),
    ]);

    const refused = async (from: string, to: string, field: string) => {
      const answer = await t.executeExpectingErrors(summary, { from, to }, bearer(live.apiKey));
      expect(answer.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
      expect(String(answer.errors?.[0]?.extensions?.detail)).toMatch(new RegExp(`^${field}:`));
    };
    await refused('2026-01-01', '2027-01-03', 'to');
    await refused('2026-03-02', '2026-03-01', 'to');
    await refused('March', '2026-03-01', 'from');
  });
});
