/**
 * A 100,000-row CSV report streamed through the platform (issue 30 item 5): memory must stay flat
 * whatever the report's size. The platform runs in this process (its memory is what is measured;
 * the client here counts lines and drops each chunk), on PGlite unless DATABASE_URL is set.
 *
 *   node -r ./scripts/register.js bench/reports.ts
 *   BENCH_REPORT_ROWS (default 100000)
 *
 * Rows are seeded with one INSERT … SELECT generate_series (the fastest way, not the API: the
 * report only reads them), then GET /reports/sessions.csv reads them all over HTTP: rest-compat
 * asks the router for keyset pages of 2,000 and writes each as CSV (rest-compat/src/routes/reports.ts).
 * Printed: seeding time, rows/s and total time of the stream, and the process's RSS and heap
 * before, at their peak during the stream (sampled every 20 ms), and their growth; and the heap
 * still used after a full GC every 500 ms (what the stream keeps alive, without the garbage it
 * has not collected yet: the peak counts that too).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { request } from 'undici';
import { openTestDatabase } from '@gateway/db/testing';
import { createLogger } from '@gateway/kernel';
import { loadPlatformConfig, startPlatform } from '@gateway/platform';
import { benchAgent, ok } from './support/http';
import { report } from './support/results';

const ROWS = Number(process.env.BENCH_REPORT_ROWS ?? 100_000);
const MB = 1024 * 1024;
// A full GC on demand (without --expose-gc on the command line: npm run bench starts plain node).
setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-reports-'));
  const db = await openTestDatabase();
  const platform = await startPlatform(
    loadPlatformConfig({ DATA_DIR: dataDir, REST_PORT: '0', ROUTER_PORT: '0', SANDBOX_BANKS: 'off' }),
    { db, logger: createLogger('bench', 'silent'), rateLimits: { read: { points: 1e9 }, write: { points: 1e9 } } },
  );
  try {
    const merchant = await ok(
      'POST',
      `${platform.restUrl}/merchants`,
      { name: 'Report Shop', mode: 'live' },
      { 'x-service-admin-key': platform.adminKey },
    );
    let started = performance.now();
    await db.knex.raw(
      `insert into "payments"."payment_sessions" ("id", "merchant_id", "livemode", "status", "amount", "currency",
         "destination_type", "destination_value", "creditor_iban", "creditor_bank", "reference", "checkout_url",
         "expires_at", "created_at", "updated_at", "completed_at", "debtor_bank")
       select 'ops_bench' || lpad(g::text, 10, '0'), ?, true, 'COMPLETED', 100 + g % 50000, 'LYD', 'iban',
         'LY83002048000020100120361', 'LY83002048000020100120361', 'benchbank', 'order-' || g,
         'http://127.0.0.1/pay/x', t + interval '15 minutes', t, t + interval '1 minute', t + interval '1 minute', 'payerbank'
       from generate_series(1, ?) as g, lateral (select timestamptz '2026-01-01T00:00:00Z' + g * interval '10 seconds' as t) as s`,
      [merchant.merchant_id, ROWS],
    );
    const seedMs = performance.now() - started;
    console.log(`seeded ${ROWS} sessions in ${(seedMs / 1000).toFixed(1)} s (one INSERT … SELECT generate_series)`);

    gc();
    const before = process.memoryUsage();
    let peak = { rss: before.rss, heapUsed: before.heapUsed };
    // What the stream keeps alive, not what it has yet to collect: a full GC every 500 ms, then the heap.
    let retained = before.heapUsed;
    let samples = 0;
    const sampler = setInterval(() => {
      samples += 1;
      if (samples % 25 === 0) {
        gc();
        retained = Math.max(retained, process.memoryUsage().heapUsed);
      }
      const now = process.memoryUsage();
      peak = { rss: Math.max(peak.rss, now.rss), heapUsed: Math.max(peak.heapUsed, now.heapUsed) };
    }, 20);

    started = performance.now();
    const answer = await request(`${platform.restUrl}/reports/sessions.csv?from=2026-01-01&to=2027-01-01`, {
      dispatcher: benchAgent,
      headers: { authorization: `Bearer ${merchant.api_key}` },
    });
    if (answer.statusCode !== 200) throw new Error(`report answered ${answer.statusCode}: ${await answer.body.text()}`);
    let lines = 0;
    let bytes = 0;
    let firstByteMs: number | undefined;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      firstByteMs ??= performance.now() - started;
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
    }
    const totalMs = performance.now() - started;
    clearInterval(sampler);
    const rows = lines - 1;
    if (rows !== ROWS) throw new Error(`the report had ${rows} rows, ${ROWS} were seeded`);

    const rowsPerSecond = rows / (totalMs / 1000);
    const rssGrowth = (peak.rss - before.rss) / MB;
    const heapGrowth = (peak.heapUsed - before.heapUsed) / MB;
    console.log(
      `\nGET /reports/sessions.csv: ${rows} rows, ${(bytes / MB).toFixed(1)} MB in ${(totalMs / 1000).toFixed(2)} s ` +
        `(${Math.round(rowsPerSecond)} rows/s, first byte after ${firstByteMs?.toFixed(0)} ms), ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`,
    );
    console.log(
      `memory of this process (platform and client): RSS ${(before.rss / MB).toFixed(0)} MB before, peak ${(peak.rss / MB).toFixed(0)} MB (+${rssGrowth.toFixed(0)} MB); ` +
        `heap used ${(before.heapUsed / MB).toFixed(0)} MB before, peak ${(peak.heapUsed / MB).toFixed(0)} MB (+${heapGrowth.toFixed(0)} MB); ` +
        `the whole report is ${(bytes / MB).toFixed(1)} MB of CSV`,
    );
    console.log(
      `heap still used after a full GC during the stream (every 500 ms): at most ${(retained / MB).toFixed(0)} MB (+${((retained - before.heapUsed) / MB).toFixed(0)} MB)`,
    );
    report({ figure: `CSV report rows/s (${rows} rows)`, value: rowsPerSecond, unit: '/s' });
    report({ figure: 'CSV report total time', value: totalMs, unit: 'ms' });
    report({
      figure: 'CSV report peak RSS growth',
      value: rssGrowth,
      unit: 'MB',
      note: `heap used +${heapGrowth.toFixed(0)} MB at its peak (garbage included), +${((retained - before.heapUsed) / MB).toFixed(0)} MB after a full GC; the report is ${(bytes / MB).toFixed(1)} MB`,
    });
  } finally {
    await platform.stop();
    await db.close();
    await benchAgent.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
