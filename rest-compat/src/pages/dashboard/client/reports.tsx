import { useState } from 'preact/hooks';
import { reportHref } from './filters';
import { lastDays, utcDay } from './summary';

/**
 * CSV exports of sessions and refunds for a range of UTC days: plain links to GET /reports/*.csv.
 * The dashboard is signed in by its HttpOnly session cookie, which the browser sends with a
 * same-origin GET (rest-compat takes it as the merchant's credential there, as on /graphql), so
 * the gateway streams the file straight to disk: no script holds the report in memory.
 */
export function ReportDownloads() {
  const month = lastDays(new Date(), 30);
  const [from, setFrom] = useState(month.dates[0]!);
  const [to, setTo] = useState(utcDay(new Date()));
  const sessions = reportHref('sessions', from, to);
  const refunds = reportHref('refunds', from, to);
  return (
    <section class="card" id="reports">
      <h2>Reports</h2>
      <p class="meta">
        Every session or refund created in the range (UTC days, both included), one row each, as CSV for your books.
      </p>
      <div class="filter-grid">
        <div>
          <label for="report-from">From</label>
          <input
            id="report-from"
            type="date"
            value={from}
            onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="report-to">To</label>
          <input id="report-to" type="date" value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
        </div>
      </div>
      {sessions && refunds ? (
        <div class="actions">
          <a class="button" id="report-sessions" href={sessions} download>
            Download sessions CSV
          </a>
          <a class="button" id="report-refunds" href={refunds} download>
            Download refunds CSV
          </a>
        </div>
      ) : (
        <p class="error" role="alert" id="report-range-error">
          Pick a first day on or before the last day.
        </p>
      )}
    </section>
  );
}
