/**
 * Issue 53 item 1: where PostgreSQL's time per payment goes, statement by statement. The platform
 * as `npm start` runs it (one process, PostgreSQL) records, with the statement recorder, what it
 * sends for a session created and for a same-bank payment (created, authorized, COMPLETED, its
 * webhooks delivered), each with its jobs' polling taken out (bench/support/replay.ts). Then each
 * recording is replayed many times at once straight to PostgreSQL (fresh ids per replay, as the
 * payment floor does), and around every statement the CPU of the PostgreSQL backend that ran it is
 * read from /proc/<pid>/stat (utime + stime, in clock ticks). A tick lands on whichever statement
 * is running when the kernel samples, so over thousands of statements the ticks per shape are what
 * that shape costs PostgreSQL. The table lists the statement shapes by PostgreSQL milliseconds per
 * flow, with their share; fix from the top.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/attribution.ts
 *   BENCH_ATTRIBUTION_REPLAYS (default 400 of each flow), BENCH_CONCURRENCY (default 20),
 *   BENCH_ATTRIBUTION_TOP (default 15 rows per flow), BENCH_ATTRIBUTION_DUMP=<file>: the table as JSON
 *
 * PostgreSQL must run on this machine (its backends' /proc entries are read): the CI's and a
 * developer's do. Where they are not readable, the table says so and shows wall time only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { DEFAULT_POOL_SIZE, openDatabase } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { newSecret } from '@gateway/kernel';
import { startBenchBanks } from './support/bench-banks';
import { benchAgent, ok } from './support/http';
import { freePort, launchPlatform } from './support/launcher';
import { runLoad } from './support/load';
import { seedPaymentFlow, UNLIMITED } from './support/payment-flow';
import { replayer, units, withoutPolling, type StatementProbe } from './support/replay';
import { report } from './support/results';
import type { RecordedStatement } from './support/statement-recorder';

const REPLAYS = Number(process.env.BENCH_ATTRIBUTION_REPLAYS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const TOP = Number(process.env.BENCH_ATTRIBUTION_TOP ?? 15);
/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface Tally {
  calls: number;
  ticks: number;
  wallMs: number;
}

/** utime + stime of a process in clock ticks; NaN when it cannot be read. */
function ticksOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/**
 * The outbox relay's work on the replayed rows, done beside the replays and not charged to them:
 * every 10 ms, each outbox's unpublished rows stamped published, as the platform's relay keeps
 * them (a replayed take's own stamps name the recorded rows, not the replay's). And the relay
 * lease the replayed takes check kept valid for the recorded token, as the platform held it. Why:
 * with the rows left unpublished, each replayed take read a batch that grew with every replay,
 * and the take read 1.35-1.55 ms of PostgreSQL CPU where the platform's costs 0.085 ms (EXPLAIN at
 * 100,000 outbox rows).
 */
async function standInRelay(knex: Knex): Promise<{ stop(): Promise<void> }> {
  const { rows } = (await knex.raw(
    `select table_schema as schema from information_schema.tables where table_name = 'outbox'`,
  )) as { rows: Array<{ schema: string }> };
  const schemas = rows.map((row) => row.schema);
  for (const schema of schemas)
    await knex.raw(`update "${schema}"."outbox_relay_lease" set lease_until = now() + interval '1 hour'`);
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const schema of schemas)
        await knex.raw(`update "${schema}"."outbox" set published_at = now() where published_at is null`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** A probe that charges each statement the ticks its backend used while it ran, by shape. */
function backendCpuProbe(tallies: Map<string, Tally>, connections = new Set<object>()): StatementProbe {
  const pids = new WeakMap<object, Promise<number>>();
  const pidOf = (connection: object) => {
    let pid = pids.get(connection);
    if (!pid) {
      const query = (connection as { query: (text: string, values: unknown[]) => Promise<{ rows: [{ pid: number }] }> })
        .query;
      pid = query.call(connection, 'select pg_backend_pid() as pid', []).then((result) => Number(result.rows[0].pid));
      pids.set(connection, pid);
    }
    return pid;
  };
  return async (connection, shape, run) => {
    connections.add(connection);
    const pid = await pidOf(connection);
    const ticks0 = ticksOf(pid);
    const t0 = performance.now();
    const result = await run();
    const tally = tallies.get(shape) ?? { calls: 0, ticks: 0, wallMs: 0 };
    tally.calls += 1;
    tally.ticks += ticksOf(pid) - ticks0;
    tally.wallMs += performance.now() - t0;
    tallies.set(shape, tally);
    return result;
  };
}

/**
 * How PostgreSQL planned the prepared statements on the replay's connections: a generic plan is
 * made once and reused; a custom plan is made again at every execution (its planning is CPU).
 */
async function planUse(connections: Set<object>): Promise<string> {
  let generic = 0;
  let custom = 0;
  for (const connection of connections) {
    const query = (connection as { query: (text: string) => Promise<{ rows: Array<Record<string, string>> }> }).query;
    const { rows } = await query.call(
      connection,
      'select coalesce(sum(generic_plans), 0) as generic, coalesce(sum(custom_plans), 0) as custom from pg_prepared_statements',
    );
    generic += Number(rows[0]!.generic);
    custom += Number(rows[0]!.custom);
  }
  return `prepared statements' plans on ${connections.size} connections: ${generic} executions with a generic plan, ${custom} with a custom one`;
}

/** The merchant's endpoint: answers 200, counts the events of each session. */
function webhookReceiver() {
  const events = new Map<string, number>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      response.end();
      const id = (JSON.parse(body || '{}') as { data?: { session_id?: string } }).data?.session_id;
      if (id) events.set(id, (events.get(id) ?? 0) + 1);
    });
  });
  return { server, eventsOf: (sessionId: string) => events.get(sessionId) ?? 0 };
}

function printTable(flow: string, tallies: Map<string, Tally>, replays: number): Array<Record<string, unknown>> {
  const rows = [...tallies.entries()]
    .map(([shape, tally]) => ({
      shape,
      perFlow: tally.calls / replays,
      pgMsPerFlow: (1000 * tally.ticks) / TICKS_PER_SECOND / replays,
      pgMsPerCall: (1000 * tally.ticks) / TICKS_PER_SECOND / tally.calls,
      wallMsPerCall: tally.wallMs / tally.calls,
    }))
    .sort((a, b) => b.pgMsPerFlow - a.pgMsPerFlow || b.wallMsPerCall * b.perFlow - a.wallMsPerCall * a.perFlow);
  const total = rows.reduce((sum, row) => sum + row.pgMsPerFlow, 0);
  const measured = Number.isFinite(total);
  console.log(
    `\n${flow}: ${rows.reduce((sum, row) => sum + row.perFlow, 0).toFixed(1)} statements, PostgreSQL ${measured ? `${total.toFixed(2)} ms` : 'CPU not readable (wall time only)'} per flow, ${replays} replays, ${CONCURRENCY} at once`,
  );
  console.log('  PG ms/flow  share  per flow  PG ms/call  wall ms/call  statement');
  for (const row of rows.slice(0, TOP))
    console.log(
      `  ${row.pgMsPerFlow.toFixed(2).padStart(10)}  ${measured && total > 0 ? `${((100 * row.pgMsPerFlow) / total).toFixed(0)}%`.padStart(5) : '    -'}  ${row.perFlow.toFixed(1).padStart(8)}  ${row.pgMsPerCall.toFixed(3).padStart(10)}  ${row.wallMsPerCall.toFixed(2).padStart(12)}  ${row.shape.slice(0, 110)}`,
    );
  if (rows.length > TOP) console.log(`  (+${rows.length - TOP} more shapes)`);
  return rows;
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error('bench/attribution.ts measures against PostgreSQL: set DATABASE_URL.');
    process.exit(2);
  }
  const db = await openTestDatabase();
  const recorderPort = await freePort();
  const platform = await launchPlatform(
    { DATABASE_URL: db.url, RATE_LIMITS: UNLIMITED, BENCH_RECORDER_PORT: String(recorderPort) },
    ['./bench/support/statement-recorder.ts'],
  );
  const internalKey = newSecret('sik_');
  const banks = await startBenchBanks(db.url, internalKey);
  const receiver = webhookReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/hook`;
  const direct = await openDatabase({ url: db.url, poolSize: DEFAULT_POOL_SIZE });
  let platformStopped = false;
  const recorder = async (path: string) =>
    (await ok('POST', `http://127.0.0.1:${recorderPort}${path}`)) as RecordedStatement[];
  try {
    const flow = await seedPaymentFlow(platform, banks, CONCURRENCY, webhookUrl);
    // Warm the platform (plans cached, pools full) before recording.
    await runLoad('warm-up', { concurrency: 10, durationMs: 2_000 }, flow.pay(flow.payeeSame));
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    /** `work` recorded to its end, then a quiet window as long: the statements without the jobs' polling. */
    const record = async (work: () => Promise<void>) => {
      await recorder('/start');
      const started = Date.now();
      await work();
      const recorded = await recorder('/stop');
      await recorder('/start');
      await new Promise((resolve) => setTimeout(resolve, Date.now() - started));
      return withoutPolling(recorded, await recorder('/stop'));
    };
    const created = await record(async () => {
      await flow.createSession(flow.payeeSame);
    });
    const paid = await record(async () => {
      const id = await flow.createSession(flow.payeeSame);
      const payer = flow.payers[0]!;
      await ok('POST', `${flow.rest}/pay/${id}/authorize`, {
        payer: { type: 'alias', value: payer.alias },
        otp: payer.otp,
      });
      for (let seen = -1; receiver.eventsOf(id) !== seen;) {
        seen = receiver.eventsOf(id);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    });
    console.log(
      `recorded: a session created, ${created.length} statements in ${units(created).length} units; a same-bank payment, ${paid.length} statements in ${units(paid).length} units`,
    );

    // The replays go straight to PostgreSQL: the platform's jobs would work their rows meanwhile.
    await platform.stop();
    platformStopped = true;
    const relay = await standInRelay(direct.knex);
    const results: Record<string, Array<Record<string, unknown>>> = {};
    for (const [name, statements] of [
      ['session created', created],
      ['same-bank payment completed', paid],
    ] as const) {
      const tallies = new Map<string, Tally>();
      const connections = new Set<object>();
      const replay = replayer(direct.knex, statements, new Map(), backendCpuProbe(tallies, connections));
      const recordedPayer = flow.payers[0]!;
      let next = 0;
      // A fixed number of replays, CONCURRENCY at a time (each worker takes the next until none is left).
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, worker) => {
          const payer = flow.payers[worker % flow.payers.length]!;
          while (next < REPLAYS) {
            next += 1;
            await replay([
              [recordedPayer.alias, payer.alias],
              [recordedPayer.iban, payer.iban],
              [recordedPayer.customerRef, payer.customerRef],
            ]);
          }
        }),
      );
      const replays = REPLAYS;
      results[name] = printTable(name, tallies, replays);
      console.log(`  ${await planUse(connections)}`);
      const pgMs = results[name].reduce((sum, row) => sum + Number(row.pgMsPerFlow), 0);
      if (Number.isFinite(pgMs))
        report({ figure: `PostgreSQL CPU per ${name} (replayed, attributed per statement)`, value: pgMs, unit: 'ms' });
    }
    await relay.stop();
    if (process.env.BENCH_ATTRIBUTION_DUMP)
      writeFileSync(process.env.BENCH_ATTRIBUTION_DUMP, JSON.stringify(results, null, 1));
  } finally {
    receiver.server.close();
    await direct.close();
    await banks.stop();
    if (!platformStopped) await platform.stop();
    await benchAgent.close();
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
