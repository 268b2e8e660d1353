/**
 * Completed payments/s through the scaled-out layout with 1 and 2 replicas, side by side (issue 17
 * item 8): the cluster of `npm run start:cluster -- --replicas N` (scripts/cluster: HAProxy in
 * front of N instances of every service, one PostgreSQL, one RabbitMQ), 50 concurrent clients
 * paying same-bank through its one public address (create -> authorize -> poll until COMPLETED),
 * sandbox bank cores in another process without latency. Each replica count gets a database and a
 * RabbitMQ vhost of its own (scripts/launcher/scratch.ts), dropped after.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test AMQP_URL=amqp://guest:guest@127.0.0.1:5672 \
 *     node -r ./scripts/register.js bench/replicas.ts
 *   BENCH_DURATION_MS (default 10000), BENCH_CONCURRENCY (default 50), BENCH_REPLICAS (default 1,2)
 *
 * Without DATABASE_URL or AMQP_URL it says so and skips (exit 0): the layout cannot run on the
 * embedded database and in-process bus. No target: more replicas on the same cores add
 * processes, not CPU (see the note it reports).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import { startCluster } from '../scripts/cluster/cluster';
import { createScratch } from '../scripts/launcher/scratch';
import { startBenchBanks } from './support/bench-banks';
import { coresUsed, cpuSeconds, formatCores } from './support/cpu';
import { benchAgent } from './support/http';
import { printTable, runLoad, type LoadResult } from './support/load';
import { seedPaymentFlow, UNLIMITED } from './support/payment-flow';
import { report } from './support/results';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const REPLICAS = (process.env.BENCH_REPLICAS ?? '1,2').split(',').map(Number);
const WARMUP_MS = 2_000;

interface Measured {
  replicas: number;
  result: LoadResult;
  cpu: Record<string, number>;
}

/** One replica count: a scratch database and vhost, the cluster, the bench banks, then the load. */
async function measure(replicas: number, databaseUrl: string, amqpUrl: string): Promise<Measured> {
  const scratch = await createScratch('bench_replicas', databaseUrl, amqpUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-cluster-'));
  const adminKey = newSecret('adm_');
  const began = Date.now();
  const cluster = await startCluster({
    replicas,
    databaseUrl: scratch.databaseUrl,
    amqpUrl: scratch.amqpUrl,
    platformSecret: newSecret('pls_'),
    adminKey,
    dataDir,
    publicPort: 0,
    env: { LOG_LEVEL: 'error' },
    serviceEnv: { router: { RATE_LIMITS: UNLIMITED } },
  }).catch(async (error) => {
    await scratch.drop();
    throw error;
  });
  const banks = await startBenchBanks(scratch.databaseUrl, newSecret('sik_'));
  try {
    console.log(
      `${replicas} replica(s): ${cluster.layout.instances.length} instances behind HAProxy at ${cluster.publicUrl}, started in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    );
    const flow = await seedPaymentFlow({ restUrl: cluster.publicUrl, adminKey }, banks, CONCURRENCY);
    const name = `${replicas} replica(s), payments completed, same bank`;
    await runLoad(`${name} (warm-up)`, { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, flow.pay(flow.payeeSame));
    const before = cpuSeconds();
    const result = await runLoad(name, { concurrency: CONCURRENCY, durationMs: DURATION_MS }, flow.pay(flow.payeeSame));
    return { replicas, result, cpu: coresUsed(before, cpuSeconds(), result.seconds) };
  } finally {
    await banks.stop();
    await cluster.stop();
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { DATABASE_URL: databaseUrl, AMQP_URL: amqpUrl } = process.env;
  if (!databaseUrl || !amqpUrl) {
    console.log(
      'bench/replicas.ts skipped: the cluster layout needs DATABASE_URL (PostgreSQL) and AMQP_URL (RabbitMQ) shared by its instances.',
    );
    return;
  }
  const runs: Measured[] = [];
  for (const replicas of REPLICAS) runs.push(await measure(replicas, databaseUrl, amqpUrl));
  await benchAgent.close();

  const cores = availableParallelism();
  console.log(
    `\n${CONCURRENCY} concurrent clients through HAProxy's public address, ${DURATION_MS / 1000} s after ${WARMUP_MS / 1000} s of warm-up, PostgreSQL, RabbitMQ`,
  );
  printTable(runs.map((run) => run.result));
  console.log(`CPU during each run, in cores (this machine has ${cores}):`);
  for (const run of runs) console.log(`  ${`${run.replicas} replica(s)`.padEnd(14)} ${formatCores(run.cpu)}`);
  const [first, last] = [runs[0]!, runs.at(-1)!];
  if (runs.length > 1) {
    console.log(
      `\nside by side: ${runs.map((run) => `${run.replicas} replica(s) ${run.result.perSecond.toFixed(1)}/s`).join(' | ')} (${(last.result.perSecond / first.result.perSecond).toFixed(2)}x)`,
    );
  }
  const note = `${cores} cores: replicas share them, so a second instance of every service adds processes (memory, context switches, database connections), not CPU; the gain from replicas needs cores or machines of their own, and here it is at best what idle CPU in the 1-replica run allows`;
  console.log(`\n${note}`);
  for (const run of runs) {
    report({
      figure: `completed payments/s, same bank, cluster with ${run.replicas} replica(s)`,
      value: run.result.perSecond,
      unit: '/s',
      ...(run.replicas === Math.max(...REPLICAS) && runs.length > 1 ? { note } : {}),
    });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
