/**
 * Payment sessions under load, end to end: 50 concurrent REST clients against the platform as
 * `npm start` runs it (its own process, PostgreSQL), sandbox bank cores in another process with
 * no injected latency (rail credits confirmed at once).
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/payments.ts
 *   BENCH_DURATION_MS (default 10000 per phase), BENCH_CONCURRENCY (default 50),
 *   BENCH_PHASES (default create,same,cross,caps,refunds), BENCH_PROFILE=<dir> (CPU profile of the platform process),
 *   BENCH_LAYOUT one-process (`npm start`: every service on one event loop), split (one process per
 *   service, `npm run start:<service>`, as a scaled-out deployment) or both (default)
 *
 * Phases: the physical limit of a creation (a bare INSERT of a session-sized row into a scratch
 * table, same concurrency, a pool of the platform's size, straight from here), sessions created/s
 * (POST /payments/sessions), the same request to a hand-written session floor in a process of its
 * own (bench/support/bare-session-server.ts: what any authenticated creation over HTTP must do; no
 * target, its share of the bare INSERT and the platform's share of it), then completed payments/s,
 * same bank and cross bank (create -> POST /pay/{id}/authorize -> poll GET /pay/{id}/status until
 * COMPLETED; latency is the whole
 * payment), and completed refunds/s beside them, same bank and cross bank (refund-flow.ts: POST
 * /payments/sessions/{id}/refunds of a small part of a paid session -> poll GET /refunds/{id}
 * until COMPLETED; latency is the whole refund; no target, reported with p50/p99). Targets (one
 * process), as shares of the bare INSERT measured in the same run, so that they mean the same on
 * a slower machine (issue 53 item 5; the absolute 300 creations/s and 100 payments/s of issue 15
 * read "NOT met" on every machine slower than the one they were set on): sessions created >= 25%
 * of it, same-bank payments completed >= 5%; creation p99 under 50 ms at 150/s offered; CPU per
 * same-bank payment: PostgreSQL's for the platform's statements <= 4 ms (the bank cores' backends,
 * which write the sandbox ledgers in the same server, counted apart) and the platform process's
 * <= 5 ms, each also printed as so many bare INSERT rows' worth of PostgreSQL CPU in the same run,
 * which is what to compare across machines (the issue gave no CPU for its own bare INSERT, so the
 * verdict is on the milliseconds). Reported
 * to the summary of `npm run bench` (bench/support/results.ts). A fresh database is created for each layout and dropped after.
 * CPU per process (platform, bank cores, PostgreSQL, load generator) is printed for each phase:
 * it shows what the machine spent its two cores on. Bounded in time; stops by itself.
 *
 * With 50 clients in a closed loop, latency is 50 / throughput (Little's law): a p99 under 50 ms
 * there needs more than 1000 creations/s. So creation latency is also measured with requests
 * arriving at a fixed rate below saturation (BENCH_RATE, default 150/s; at most 50 in flight).
 */
import { DEFAULT_POOL_SIZE, openDatabase } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { newId, newSecret } from '@gateway/kernel';
import { startBenchBanks } from './support/bench-banks';
import { backendGroups, coresUsed, cpuSeconds, formatCores } from './support/cpu';
import { startSessionFloor } from './support/bare-session';
import { benchAgent, ok } from './support/http';
import { launchPlatform, type LaunchedPlatform } from './support/launcher';
import { launchSplitPlatform } from './support/split-launcher';
import { printTable, runLoad, runOpenLoad, type LoadResult } from './support/load';
import { seedPaymentFlow, UNLIMITED } from './support/payment-flow';
import { refundWork } from './support/refund-flow';
import { report } from './support/results';

/**
 * A session created by hand (bench/support/bare-session-server.ts): the key checked, the row and its
 * event inserted, in one statement, in a server of its own. No target: it says how much of the
 * bare INSERT any authenticated creation over HTTP can reach on the machine.
 */
const SESSION_FLOOR = 'session floor (hand-written: key, row, event)';

/** Issue 53 item 5: sessions created/s as a share of the bare INSERT/s of the same run, in %. */
const SESSIONS_SHARE_OF_INSERT = 25;
/** Issue 53 item 5: same-bank payments completed/s as a share of the bare INSERT/s, in %. */
const SAME_BANK_SHARE_OF_INSERT = 5;
/** Issue 53 item 5: PostgreSQL CPU per same-bank payment for the platform's statements, ms. */
const SAME_BANK_POSTGRES_CPU_MS = 4;
/** Issue 53 item 5: the platform process's CPU per same-bank payment, ms. */
const SAME_BANK_PLATFORM_CPU_MS = 5;

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const WARMUP_MS = 2_000;
const PHASES = new Set((process.env.BENCH_PHASES ?? 'create,same,cross,caps,refunds').split(','));
const LAYOUT = process.env.BENCH_LAYOUT ?? 'both';
const RATE = Number(process.env.BENCH_RATE ?? 150);
/** A cap no bench run reaches (1e15 minor units): the phase measures its checks, never a refusal. */
const NEVER_REACHED_CAP = 1e15;

/**
 * The physical limit of a creation: a bare INSERT of a session-sized row (the same columns,
 * constraints and indexes as payments.payment_sessions) into a scratch table, from `CONCURRENCY`
 * clients on a pool of the platform's size, with nothing of the platform around it.
 */
async function bareInserts(databaseUrl: string): Promise<{ result: LoadResult; usage: Record<string, number> }> {
  const db = await openDatabase({ url: databaseUrl, poolSize: DEFAULT_POOL_SIZE });
  try {
    await db.knex.raw('create table "bench_session_inserts" (like "payments"."payment_sessions" including all)');
    const insert = () => {
      const now = new Date();
      return db.knex.raw(
        `insert into "bench_session_inserts" ("id", "merchant_id", "status", "amount", "currency", "destination_type", "destination_value", "creditor_iban", "creditor_bank", "reference", "checkout_url", "expires_at", "created_at", "updated_at", "livemode")
         values (?, ?, 'PENDING', ?, 'LYD', 'alias', ?, ?, ?, 'bench', ?, ?, ?, ?, true)`,
        [
          newId('paymentSession'),
          'mer_bench',
          1_000,
          'shop.bencha',
          'LY83002048000020100120361',
          'bencha',
          'http://127.0.0.1/pay/ps_x',
          new Date(now.getTime() + 900_000),
          now,
          now,
        ],
      );
    };
    await runLoad('bare INSERT (warm-up)', { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, insert);
    const before = cpuSeconds();
    const result = await runLoad(
      `bare INSERT of a session row, pool of ${DEFAULT_POOL_SIZE}`,
      { concurrency: CONCURRENCY, durationMs: DURATION_MS },
      insert,
    );
    // A limit that failed to measure would read 0/s: a schema change left the INSERT behind once
    // (livemode, set by the code and without a default), and the summary printed "Infinity%".
    if (result.requests === 0) throw new Error(`the bare INSERT failed: ${result.firstError}`);
    return { result, usage: coresUsed(before, cpuSeconds(), result.seconds) };
  } finally {
    await db.close();
  }
}

interface Measured {
  layout: string;
  results: LoadResult[];
  cpu: Array<{ phase: string; usage: Record<string, number> }>;
}

/** One layout: a fresh database, the gateway, the bank cores, seeds, then the phases. */
async function measure(layout: 'one process' | 'one process per service'): Promise<Measured> {
  const db = await openTestDatabase(); // a fresh database of its own, dropped at the end
  const internalKey = newSecret('sik_');
  const env = { DATABASE_URL: db.url, RATE_LIMITS: UNLIMITED };
  let platform: LaunchedPlatform;
  if (layout === 'one process') {
    platform = await launchPlatform(env);
  } else {
    const shared = process.env.DATABASE_URL;
    process.env.DATABASE_URL = db.url; // the split launcher hands its own environment's database to every service
    platform = await launchSplitPlatform(env).finally(() => (process.env.DATABASE_URL = shared));
  }
  const banks = await startBenchBanks(db.url, internalKey);
  const measured: Measured = { layout, results: [], cpu: [] };
  try {
    const flow = await seedPaymentFlow(platform, banks, CONCURRENCY);
    const { createSession, pay, payeeSame, payeeCross } = flow;
    const phase = async (name: string, work: (worker: number) => Promise<void>) => {
      await runLoad(`${name} (warm-up)`, { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, work);
      // The bank cores' backends counted apart: PostgreSQL's CPU a payment is the platform's statements'.
      const backends = await backendGroups(db.knex);
      const before = cpuSeconds(backends);
      const result = await runLoad(`${name}`, { concurrency: CONCURRENCY, durationMs: DURATION_MS }, work);
      measured.results.push(result);
      const after = cpuSeconds({ ...backends, ...(await backendGroups(db.knex)) });
      measured.cpu.push({ phase: name, usage: coresUsed(before, after, result.seconds) });
    };
    if (PHASES.has('create') || PHASES.has('same')) {
      // The limit every share is of, and the CPU a row costs PostgreSQL, which the CPU targets are read against.
      const { result, usage } = await bareInserts(db.url);
      measured.results.push(result);
      measured.cpu.push({ phase: result.name, usage });
    }
    if (PHASES.has('create')) {
      await phase('sessions created (POST /payments/sessions)', async () => {
        await createSession(payeeSame);
      });
      // The same request to a hand-written server that does only what a creation must (no target).
      const floor = await startSessionFloor(db.url);
      try {
        await phase(SESSION_FLOOR, async () => {
          await ok(
            'POST',
            floor.url,
            {
              amount: 1_000,
              currency: 'LYD',
              destination: { type: 'alias', value: payeeSame.alias },
              reference: 'bench',
            },
            flow.merchantAuth,
          );
        });
      } finally {
        await floor.stop();
      }
    }
    if (PHASES.has('create')) {
      const result = await runOpenLoad(
        `sessions created at ${RATE}/s offered (open loop)`,
        RATE,
        DURATION_MS,
        CONCURRENCY,
        async () => {
          await createSession(payeeSame);
        },
      );
      measured.results.push(result);
    }
    if (PHASES.has('same')) await phase('payments completed, same bank', pay(payeeSame));
    if (PHASES.has('cross')) await phase('payments completed, cross bank (rail)', pay(payeeCross));
    if (PHASES.has('caps')) {
      // Issue 48: what a net debit cap on the payer's bank costs. Every cross-bank payment reserves
      // on its debtor's position row whether a cap is set or not (positions are always kept, so a
      // cap set later starts right); a cap adds its condition and the alert check. Set high enough
      // to refuse nothing, between two runs without one (their mean is "caps off": drift hits both).
      const capUrl = `${platform.restUrl}/banks/${flow.payerBank}/net-debit-caps/LYD`;
      const admin = { 'x-service-admin-key': platform.adminKey };
      await phase('payments completed, cross bank, no cap (before)', pay(payeeCross));
      await ok('PUT', capUrl, { net_debit_cap: NEVER_REACHED_CAP }, admin);
      await phase('payments completed, cross bank, cap set', pay(payeeCross));
      await ok('DELETE', capUrl, undefined, admin);
      await phase('payments completed, cross bank, no cap (after)', pay(payeeCross));
    }
    if (PHASES.has('refunds')) {
      // The merchant's settlement account is at the first bank, beside flow.payers.
      await phase('refunds completed, same bank', await refundWork(flow, flow.payers, CONCURRENCY));
      const payersCross = await flow.payersCross(CONCURRENCY);
      await phase('refunds completed, cross bank (rail)', await refundWork(flow, payersCross, CONCURRENCY));
    }
  } finally {
    await banks.stop();
    await platform.stop();
    await db.close();
  }
  return measured;
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error(
      'bench/payments.ts measures against PostgreSQL: set DATABASE_URL (e.g. postgresql://postgres@127.0.0.1:5432/test).',
    );
    process.exit(2);
  }
  const runs: Measured[] = [];
  if (LAYOUT === 'one-process' || LAYOUT === 'both') runs.push(await measure('one process'));
  if (LAYOUT === 'split' || LAYOUT === 'both') runs.push(await measure('one process per service'));
  await benchAgent.close();

  console.log(
    `\n${CONCURRENCY} concurrent clients, ${DURATION_MS / 1000} s per phase after ${WARMUP_MS / 1000} s of warm-up, PostgreSQL, sandbox cores without latency; one process on the in-process bus (npm start), one process per service on ${process.env.AMQP_URL ? 'RabbitMQ' : 'no shared bus'}`,
  );
  for (const run of runs) {
    console.log(`\n${run.layout}:`);
    printTable(run.results);
    console.log('CPU during each phase, in cores (this machine has 2):');
    for (const { phase: name, usage } of run.cpu) {
      console.log(`  ${name.padEnd(44)} ${formatCores(usage)}`);
    }
  }
  console.log(
    `\nTargets (one process), shares of the bare INSERT in the same run: sessions created >= ${SESSIONS_SHARE_OF_INSERT}%, same-bank payments completed >= ${SAME_BANK_SHARE_OF_INSERT}%; creation p99 < 50 ms at ${RATE}/s offered; cross bank and refunds: no target (printed beside payments)`,
  );
  for (const run of runs) {
    const found = (prefix: string) => run.results.find((r) => r.name.startsWith(prefix));
    reportCapCost(run.layout, found);
    const insert = found('bare INSERT');
    const rows: Array<{ result?: LoadResult; figure: string; p99?: boolean; target?: number; share?: number }> = [
      { result: found('sessions created (POST'), figure: 'sessions created/s', share: SESSIONS_SHARE_OF_INSERT },
      {
        result: found('sessions created at'),
        figure: `session creation p99 at ${RATE}/s offered`,
        p99: true,
        target: 50,
      },
      {
        result: found('payments completed, same'),
        figure: 'completed payments/s, same bank',
        share: SAME_BANK_SHARE_OF_INSERT,
      },
      { result: found('payments completed, cross bank (rail)'), figure: 'completed payments/s, cross bank' },
      { result: found('refunds completed, same'), figure: 'completed refunds/s, same bank' },
      { result: found('refunds completed, cross'), figure: 'completed refunds/s, cross bank' },
    ];
    // The issue's targets are for the one-process layout; the split layout's figures stand beside them.
    const targeted = run.layout === 'one process';
    reportSessionFloor(run.layout, found(SESSION_FLOOR), found('sessions created (POST'), insert);
    if (targeted) reportSameBankCpu(run, found('payments completed, same'), insert);
    for (const { result, figure, p99, target, share } of rows) {
      if (!result) continue;
      const value = p99 ? result.p99Ms : result.perSecond;
      if (share !== undefined && insert) reportShareOfInsert(run.layout, figure, value, insert.perSecond, share);
      const verdict =
        target === undefined
          ? `p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms (no target)`
          : (p99 ? value < target : value >= target)
            ? 'met'
            : 'NOT met';
      console.log(
        `  ${`${run.layout}, ${figure}`.padEnd(60)} ${value.toFixed(p99 ? 1 : 0).padStart(7)} ${p99 ? 'ms' : '/s'}: ${verdict}`,
      );
      const limit =
        !p99 && figure.startsWith('sessions') && insert ? { limit: insert.perSecond, limitName: 'bare INSERT' } : {};
      report({
        figure: `${figure} (${run.layout})`,
        value,
        unit: p99 ? 'ms' : '/s',
        ...(targeted && target !== undefined ? { target, comparison: p99 ? '<' : '>=' } : {}),
        // Refunds have no target: their latency beside the rate, under the table.
        ...(target === undefined
          ? { note: `p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, ${result.errors} errors` }
          : {}),
        ...limit,
      });
    }
  }
}

/**
 * A rate as a share of the bare INSERT of the same run (issue 53 item 5), with its target for the
 * one-process layout; the split layout's share stands beside it.
 */
function reportShareOfInsert(
  layout: string,
  figure: string,
  perSecond: number,
  insertPerSecond: number,
  target: number,
) {
  const value = (100 * perSecond) / insertPerSecond;
  const targeted = layout === 'one process';
  console.log(
    `  ${`${layout}, ${figure} as a share of the bare INSERT`.padEnd(60)} ${value.toFixed(1).padStart(7)} %${targeted ? `: ${value >= target ? 'met' : 'NOT met'} (>= ${target}%)` : ''}`,
  );
  report({
    figure: `${figure.replace('/s', '')}, share of the bare INSERT (${layout})`,
    value,
    unit: '%',
    ...(targeted ? { target, comparison: '>=' as const } : {}),
  });
}

/**
 * Issue 53 item 5's CPU targets for a same-bank payment (one process): PostgreSQL's for the
 * platform's statements and the platform process's, in ms and as bare INSERT rows' worth of
 * PostgreSQL CPU measured in the same run.
 */
function reportSameBankCpu(run: Measured, payments?: LoadResult, insert?: LoadResult): void {
  if (!payments || payments.perSecond === 0) return;
  const usageOf = (phase: string) => run.cpu.find((entry) => entry.phase === phase)?.usage ?? {};
  const during = usageOf(payments.name);
  const insertRow =
    insert && insert.perSecond > 0 ? (usageOf(insert.name).postgres ?? 0) / insert.perSecond : undefined;
  const figures: Array<[string, number, number]> = [
    ['PostgreSQL CPU per same-bank payment (platform statements)', during.postgres ?? 0, SAME_BANK_POSTGRES_CPU_MS],
    ['platform CPU per same-bank payment', during.gateway ?? 0, SAME_BANK_PLATFORM_CPU_MS],
  ];
  for (const [figure, cores, target] of figures) {
    const ms = (1000 * cores) / payments.perSecond;
    const rows = insertRow ? ` (${(cores / payments.perSecond / insertRow).toFixed(0)} bare INSERT rows' worth)` : '';
    console.log(
      `  ${`${run.layout}, ${figure}`.padEnd(60)} ${ms.toFixed(2).padStart(7)} ms${rows}: ${ms <= target ? 'met' : 'NOT met'} (<= ${target} ms)`,
    );
    report({ figure: `${figure} (${run.layout})`, value: ms, unit: 'ms', target, comparison: '<=' });
  }
}

/**
 * The session floor's rate as a share of the bare INSERT, and the platform's sessions as a share of
 * the floor: what an authenticated creation over HTTP can reach on this machine, and how near the
 * platform comes to it. No targets (issue 53's are shares of the bare INSERT).
 */
function reportSessionFloor(layout: string, floor?: LoadResult, sessions?: LoadResult, insert?: LoadResult): void {
  if (!floor) return;
  const shares: Array<[string, number | undefined]> = [
    ['session floor/s as a share of the bare INSERT', insert && (100 * floor.perSecond) / insert.perSecond],
    ['sessions created/s as a share of the session floor', sessions && (100 * sessions.perSecond) / floor.perSecond],
  ];
  for (const [figure, value] of shares) {
    if (value === undefined) continue;
    console.log(`  ${`${layout}, ${figure}`.padEnd(60)} ${value.toFixed(1).padStart(7)} % (no target)`);
    report({ figure: `${figure} (${layout})`, value, unit: '%' });
  }
}

/**
 * Issue 48's target: cross-bank payments/s with a cap set at least 90% of those without one (the
 * mean of the runs just before and just after, in the same layout).
 */
function reportCapCost(layout: string, found: (prefix: string) => LoadResult | undefined): void {
  const capped = found('payments completed, cross bank, cap set');
  const before = found('payments completed, cross bank, no cap (before)');
  const after = found('payments completed, cross bank, no cap (after)');
  if (!capped || !before || !after) return;
  const uncapped = (before.perSecond + after.perSecond) / 2;
  const ratio = capped.perSecond / uncapped;
  console.log(
    `  ${`${layout}, cross bank with a cap / without`.padEnd(60)} ${(100 * ratio).toFixed(0).padStart(6)} %: ${ratio >= 0.9 ? 'met' : 'NOT met'} (cap set ${capped.perSecond.toFixed(0)}/s, p99 ${capped.p99Ms.toFixed(0)} ms; no cap ${before.perSecond.toFixed(0)} and ${after.perSecond.toFixed(0)}/s, p99 ${before.p99Ms.toFixed(0)} and ${after.p99Ms.toFixed(0)} ms)`,
  );
  report({
    figure: `cross-bank payments/s with a net debit cap / without (${layout})`,
    value: 100 * ratio,
    unit: '%',
    target: 90,
    comparison: '>=',
    note: `cap set ${capped.perSecond.toFixed(0)}/s; no cap ${before.perSecond.toFixed(0)}/s before, ${after.perSecond.toFixed(0)}/s after`,
  });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
