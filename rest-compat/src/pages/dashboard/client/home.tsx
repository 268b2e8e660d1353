import type { ChartConfiguration } from 'chart.js';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { graphql, subscribe } from './api';
import { baseOptions, CHART_COLORS, ChartCanvas } from './chart';
import { formatAmount, isFinalSession } from './format';
import { DAILY_SUMMARY, SESSION_UPDATED, SESSIONS, type Connection, type SessionRow } from './operations';
import { ReportDownloads } from './reports';
import { ErrorLine, hrefOf, useDashboard, usePoll } from './shared';
import { formatRate, lastDays, seriesByCurrency, toMajor, type CurrencySeries, type DailySummary } from './summary';

const DAYS = 30;
/** New sessions have no subscription of their own: the figures are asked again this often as well. */
const SUMMARY_POLL_MS = 30_000;
/** Open sessions among the newest this many are followed live; one that ends refreshes the figures. */
const FOLLOWED = 20;
/** How often the newest sessions are looked at for new open ones to follow (the API has no "new session" subscription). */
const LOOK_MS = 3_000;

/**
 * The home view: the last 30 days per currency from dailySummary (volume per day, success rate,
 * failure reasons), refreshed when a followed session reaches a final status (paymentSessionUpdated)
 * and every 30 seconds for sessions created since.
 */
export function HomeView() {
  const { merchant, live } = useDashboard();
  const range = useMemo(() => lastDays(new Date(), DAYS), [merchant.id]);
  const { data, error, refresh } = usePoll(
    () =>
      graphql<{ dailySummary: DailySummary[] }>(DAILY_SUMMARY, { from: range.from, to: range.to }).then((answer) =>
        seriesByCurrency(answer.dailySummary, range.dates),
      ),
    SUMMARY_POLL_MS,
    [merchant.id],
  );
  useFinishedSessions(live, () => void refresh(), merchant.id);
  const [picked, setPicked] = useState<string | null>(null);
  const series = data?.find((entry) => entry.currency === picked) ?? data?.[0];

  return (
    <>
      <section class="card" id="home">
        <div class="section-head">
          <h1>Last {DAYS} days</h1>
          {data && data.length > 1 && (
            <div class="tabs" role="tablist" id="currency-tabs">
              {data.map((entry) => (
                <button
                  type="button"
                  role="tab"
                  key={entry.currency}
                  aria-selected={entry.currency === series?.currency}
                  class={entry.currency === series?.currency ? 'tab current' : 'tab'}
                  data-currency={entry.currency}
                  onClick={() => setPicked(entry.currency)}
                >
                  {entry.currency}
                </button>
              ))}
            </div>
          )}
        </div>
        <ErrorLine error={error} id="home-error" />
        {data && !series && (
          <p class="meta" id="home-empty">
            No payments in the last {DAYS} days. Create a session (POST /payments/sessions) and its payment shows here
            once it completes; the <a href={hrefOf('sessions')}>sessions</a> list has them all.
          </p>
        )}
        {series && <Figures series={series} />}
      </section>
      {series && <Charts series={series} key={series.currency} />}
      <ReportDownloads />
    </>
  );
}

function Figures({ series }: { series: CurrencySeries }) {
  const { exponents } = useDashboard();
  const { totals } = series;
  return (
    <dl class="figures" id="figures" data-currency={series.currency}>
      <div class="figure">
        <dt>Volume</dt>
        <dd id="figure-volume">{formatAmount(totals.volume, series.currency, exponents)}</dd>
      </div>
      <div class="figure">
        <dt>Payments</dt>
        <dd id="figure-payments">
          {totals.completed} completed · {totals.failed} failed
        </dd>
      </div>
      <div class="figure">
        <dt>Success rate</dt>
        <dd id="figure-success">{formatRate(totals.successRate)}</dd>
      </div>
      <div class="figure">
        <dt>Refunded</dt>
        <dd id="figure-refunded">
          {formatAmount(totals.refundedAmount, series.currency, exponents)} ({totals.refunds})
        </dd>
      </div>
    </dl>
  );
}

function Charts({ series }: { series: CurrencySeries }) {
  const { exponents } = useDashboard();
  const exponent = exponents[series.currency] ?? 2;
  const labels = series.days.map((day) => day.slice(5));
  const volume = useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels,
        datasets: [
          {
            label: `Volume (${series.currency})`,
            data: series.volume.map((minor) => toMajor(minor, exponent)),
            backgroundColor: CHART_COLORS.volume,
            maxBarThickness: 28,
          },
        ],
      },
      options: { ...baseOptions(), scales: { y: { beginAtZero: true } } },
    }),
    [series, exponent],
  );
  const rate = useMemo<ChartConfiguration>(
    () => ({
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            label: 'Success rate (%)',
            data: series.successRate.map((value) => (value === null ? null : Math.round(value * 1000) / 10)),
            borderColor: CHART_COLORS.rate,
            backgroundColor: CHART_COLORS.rate,
            pointRadius: 4,
            spanGaps: true,
          },
        ],
      },
      options: { ...baseOptions(), scales: { y: { min: 0, max: 100 } } },
    }),
    [series],
  );
  const failures = useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: series.failures.map((failure) => failure.code),
        datasets: [
          {
            label: 'Failed payments',
            data: series.failures.map((failure) => failure.count),
            backgroundColor: CHART_COLORS.failure,
            maxBarThickness: 40,
          },
        ],
      },
      options: { ...baseOptions(), indexAxis: 'y', scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } },
    }),
    [series],
  );
  const money = (minor: number) => formatAmount(minor, series.currency, exponents);
  return (
    <div class="charts">
      <section class="card chart-card">
        <h2>Volume per day</h2>
        <ChartCanvas
          id="chart-volume"
          config={volume}
          summary={`${money(series.totals.volume)} over ${DAYS} days, ${series.volume.filter((v) => v > 0).length} days with payments`}
        />
      </section>
      <section class="card chart-card">
        <h2>Success rate</h2>
        <ChartCanvas
          id="chart-success"
          config={rate}
          summary={`${formatRate(series.totals.successRate)} of ${series.totals.completed + series.totals.failed} finished payments completed`}
        />
      </section>
      <section class="card chart-card">
        <h2>Failure reasons</h2>
        {series.failures.length === 0 ? (
          <p class="meta" id="no-failures">
            No failed payments in {series.currency} in these {DAYS} days.
          </p>
        ) : (
          <ChartCanvas
            id="chart-failures"
            config={failures}
            summary={series.failures.map((failure) => `${failure.code}: ${failure.count}`).join(', ')}
          />
        )}
      </section>
    </div>
  );
}

/**
 * Follows the open sessions among the newest (paymentSessionUpdated) and calls `onFinished` when one
 * reaches a final status: the moment the figures change. The newest are looked at every few
 * seconds for new ones to follow (or that already ended).
 */
function useFinishedSessions(live: ReturnType<typeof useDashboard>['live'], onFinished: () => void, key: string) {
  const followed = useRef(new Map<string, () => void>());
  const callback = useRef(onFinished);
  callback.current = onFinished;
  useEffect(() => {
    let stopped = false;
    let seen: Set<string> | null = null;
    const look = async () => {
      const answer = await graphql<{ paymentSessions: Connection<SessionRow> }>(SESSIONS(false), {
        first: FOLLOWED,
      }).catch(() => null);
      if (stopped || !answer) return;
      // A session that appeared and ended between two looks changed the figures too.
      const ended = answer.paymentSessions.edges.some(
        ({ node }) => seen !== null && !seen.has(node.id) && isFinalSession(node.status),
      );
      seen = new Set(answer.paymentSessions.edges.map(({ node }) => node.id));
      if (ended) callback.current();
      for (const { node } of answer.paymentSessions.edges) {
        if (isFinalSession(node.status) || followed.current.has(node.id)) continue;
        const stop = subscribe<{ paymentSessionUpdated: SessionRow }>(
          live,
          SESSION_UPDATED,
          { id: node.id },
          ({ paymentSessionUpdated }) => {
            if (!isFinalSession(paymentSessionUpdated.status)) return;
            followed.current.get(node.id)?.();
            followed.current.delete(node.id);
            callback.current();
          },
          () => undefined,
        );
        followed.current.set(node.id, stop);
      }
    };
    void look();
    const timer = setInterval(() => void look(), LOOK_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
      for (const stop of followed.current.values()) stop();
      followed.current.clear();
    };
  }, [live, key]);
}
