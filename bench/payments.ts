/**
 * Payment sessions under load, end to end: 50 concurrent REST clients against the platform as
 * `npm start` runs it (its own process, PostgreSQL), sandbox bank cores in another process with
 * no injected latency (rail credits confirmed at once).
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/payments.ts
 *   BENCH_DURATION_MS (default 10000 per phase), BENCH_CONCURRENCY (default 50),
 *   BENCH_PHASES (default create,same,cross), BENCH_PROFILE=<dir> (CPU profile of the platform process),
 *   BENCH_LAYOUT one-process (`npm start`: every service on one event loop), split (one process per
 *   service, `npm run start:<service>`, as a scaled-out deployment) or both (default)
 *
 * Phases: sessions created/s (POST /payments/sessions), then completed payments/s, same bank and
 * cross bank (create -> POST /pay/{id}/authorize -> poll GET /pay/{id}/status until COMPLETED;
 * latency is the whole payment). Targets on a 2-core machine: 300 creations/s with p99 under
 * 50 ms, 100 completed payments/s. A fresh database is created for the run and dropped after.
 * CPU per process (platform, bank cores, PostgreSQL, load generator) is printed for each phase:
 * it shows what the machine spent its two cores on. Bounded in time; stops by itself.
 *
 * With 50 clients in a closed loop, latency is 50 / throughput (Little's law): a p99 under 50 ms
 * there needs more than 1000 creations/s. So creation latency is also measured with requests
 * arriving at a fixed rate below saturation (BENCH_RATE, default 150/s; at most 50 in flight).
 */
import { performance } from 'node:perf_hooks';
import { openTestDatabase } from '@gateway/db/testing';
import { newSecret } from '@gateway/kernel';
import { benchCustomer, registerBenchBanks, startBenchBanks, type BenchBank, type BenchBanks, type BenchCustomer } from './support/bench-banks';
import { coresUsed, cpuSeconds, formatCores } from './support/cpu';
import { benchAgent, ok } from './support/http';
import { launchPlatform, type LaunchedPlatform } from './support/launcher';
import { launchSplitPlatform } from './support/split-launcher';
import { printTable, runLoad, type LoadResult } from './support/load';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const WARMUP_MS = 2_000;
const PHASES = new Set((process.env.BENCH_PHASES ?? 'create,same,cross').split(','));
const LAYOUT = process.env.BENCH_LAYOUT ?? 'both';
const RATE = Number(process.env.BENCH_RATE ?? 150);

/** Open loop: a request every 1/rate s whatever the answers, never more than `cap` in flight (extra arrivals are dropped and counted as errors). */
async function runOpenLoad(name: string, rate: number, durationMs: number, cap: number, work: () => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  const pending: Array<Promise<void>> = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < durationMs; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight >= cap) {
      errors += 1;
      continue;
    }
    inFlight += 1;
    const t0 = performance.now();
    pending.push(
      work()
        .then(
          () => void latencies.push(performance.now() - t0),
          () => void (errors += 1),
        )
        .finally(() => (inFlight -= 1)),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { name, requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}
const UNLIMITED = JSON.stringify({ session_create: { points: 1e9 }, write: { points: 1e9 }, read: { points: 1e9 } });

async function seed(platform: LaunchedPlatform, cores: BenchBanks) {
  const bankKeys = await registerBenchBanks(platform, cores);
  const [a, b] = cores.banks as [BenchBank, BenchBank];
  const customer = (bank: BenchBank, name: string, balance: number) => benchCustomer(platform, cores, bankKeys[bank.handle]!, bank, name, balance);
  const payers: BenchCustomer[] = [];
  for (let i = 0; i < CONCURRENCY; i += 1) payers.push(await customer(a, `payer${i}`, 1_000_000_000_000));
  const payeeSame = await customer(a, 'shop', 0);
  const payeeCross = await customer(b, 'shop', 0);
  const merchant = await ok('POST', `${platform.restUrl}/merchants`, { name: 'Bench Shop' }, { 'x-service-admin-key': platform.adminKey });
  return { payers, payeeSame, payeeCross, merchantKey: merchant.api_key as string };
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
    const { payers, payeeSame, payeeCross, merchantKey } = await seed(platform, banks);
    const merchant = { authorization: `Bearer ${merchantKey}` };
    const createSession = async (payee: BenchCustomer, amount = 1_000): Promise<string> =>
      (await ok('POST', `${platform.restUrl}/payments/sessions`, { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: 'bench' }, merchant))
        .session_id;
    const pay = (payee: BenchCustomer) => async (worker: number) => {
      const payer = payers[worker]!;
      const id = await createSession(payee);
      const authorized = await ok('POST', `${platform.restUrl}/pay/${id}/authorize`, { payer: { type: 'alias', value: payer.alias }, otp: payer.otp });
      let status: string = authorized.status;
      while (status !== 'COMPLETED') {
        if (status === 'FAILED' || status === 'EXPIRED') throw new Error(`payment ${id} ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
        status = (await ok('GET', `${platform.restUrl}/pay/${id}/status`, undefined, { 'x-session-token': authorized.session_token })).status;
      }
    };
    const phase = async (name: string, work: (worker: number) => Promise<void>) => {
      await runLoad(`${name} (warm-up)`, { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, work);
      const before = cpuSeconds();
      const result = await runLoad(`${name}`, { concurrency: CONCURRENCY, durationMs: DURATION_MS }, work);
      measured.results.push(result);
      measured.cpu.push({ phase: name, usage: coresUsed(before, cpuSeconds(), result.seconds) });
    };
    if (PHASES.has('create')) {
      await phase('sessions created (POST /payments/sessions)', async () => {
        await createSession(payeeSame);
      });
    }
    if (PHASES.has('create')) {
      const result = await runOpenLoad(`sessions created at ${RATE}/s offered (open loop)`, RATE, DURATION_MS, CONCURRENCY, async () => {
        await createSession(payeeSame);
      });
      measured.results.push(result);
    }
    if (PHASES.has('same')) await phase('payments completed, same bank', pay(payeeSame));
    if (PHASES.has('cross')) await phase('payments completed, cross bank (rail)', pay(payeeCross));
  } finally {
    await banks.stop();
    await platform.stop();
    await db.close();
  }
  return measured;
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error('bench/payments.ts measures against PostgreSQL: set DATABASE_URL (e.g. postgresql://postgres@127.0.0.1:5432/test).');
    process.exit(2);
  }
  const runs: Measured[] = [];
  if (LAYOUT === 'one-process' || LAYOUT === 'both') runs.push(await measure('one process'));
  if (LAYOUT === 'split' || LAYOUT === 'both') runs.push(await measure('one process per service'));
  await benchAgent.close();

  console.log(`\n${CONCURRENCY} concurrent clients, ${DURATION_MS / 1000} s per phase after ${WARMUP_MS / 1000} s of warm-up, PostgreSQL, sandbox cores without latency`);
  for (const run of runs) {
    console.log(`\n${run.layout}:`);
    printTable(run.results);
    console.log('CPU during each phase, in cores (this machine has 2):');
    for (const { phase: name, usage } of run.cpu) {
      console.log(`  ${name.padEnd(44)} ${formatCores(usage)}`);
    }
  }
  console.log('\nTargets: creations >= 300/s with p99 < 50 ms, completed payments >= 100/s');
  for (const run of runs) {
    for (const result of run.results) {
      if (result.name.includes('open loop')) {
        console.log(`  ${`${run.layout}, ${result.name}`.padEnd(80)} p99 ${result.p99Ms.toFixed(1).padStart(7)} ms: ${result.p99Ms < 50 ? 'under' : 'NOT under'} 50 ms`);
        continue;
      }
      const met = result.name.startsWith('sessions') ? result.perSecond >= 300 && result.p99Ms < 50 : result.perSecond >= 100;
      console.log(
        `  ${`${run.layout}, ${result.name}`.padEnd(80)} ${result.perSecond.toFixed(0).padStart(5)}/s, p99 ${result.p99Ms.toFixed(1).padStart(7)} ms: ${met ? 'met' : 'NOT met'}`,
      );
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
