/**
 * Bank-core client overhead: getAccount through the client vs a bare undici request to the same
 * sandbox endpoint, 50 concurrent callers, fixed duration each.
 *   node -r ./scripts/register.js bench/bank-core-client.ts
 * Env: DATABASE_URL (unset: in-memory PGlite), BENCH_DURATION_MS (default 5000), BENCH_CONCURRENCY (50).
 */
import { Agent, request } from 'undici';
import { Registry } from 'prom-client';
import { createLogger } from '@gateway/kernel';
import { openDatabase } from '@gateway/db';
import { startSandboxBank } from '@gateway/bank-sandbox';
import { closeBankCoreAgent, createBankCoreClient } from '@gateway/bank-core-client';
import { report } from './support/results';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5_000);
const WARMUP_MS = 2_000;
/** Both cases run in alternating rounds, so warm-up and drift (JIT, database caches) hit them alike. */
const ROUNDS = 4;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const INTERNAL_KEY = 'sik_bench_internal_key_0123456789';

interface Sample {
  latencies: number[];
  errors: number;
  seconds: number;
}

interface Result {
  name: string;
  calls: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** CONCURRENCY callers loop on `call` until the time is up; latencies in ms. */
async function load(call: () => Promise<unknown>, durationMs: number, into: Sample): Promise<void> {
  const latencies = into.latencies;
  let errors = 0;
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          await call();
          latencies.push(performance.now() - t0);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  into.errors += errors;
  into.seconds += (performance.now() - started) / 1000;
}

function summarize(name: string, sample: Sample): Result {
  const latencies = [...sample.latencies].sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    name,
    calls: latencies.length,
    errors: sample.errors,
    perSecond: latencies.length / sample.seconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}

const emptySample = (): Sample => ({ latencies: [], errors: 0, seconds: 0 });

async function main(): Promise<void> {
  const silent = createLogger('bench', 'silent');
  const db = await openDatabase(process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : {});
  const bank = await startSandboxBank({
    handle: 'benchbank',
    institutionCode: '099',
    internalKey: INTERNAL_KEY,
    db,
    logger: silent,
  });
  const bareAgent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });
  try {
    const account = await bank.openAccount({
      customerRef: 'bench',
      holderName: 'Bench Mark',
      currency: 'LYD',
      balance: 1_000_000,
    });
    const client = createBankCoreClient({
      bankHandle: 'benchbank',
      baseUrl: bank.url,
      internalKey: INTERNAL_KEY,
      metrics: new Registry(),
      logger: silent,
      production: false,
    });
    const viaClient = () => client.getAccount(account.iban);
    const bare = async () => {
      const response = await request(`${bank.url}/accounts/${account.iban}`, {
        headers: { 'x-service-internal-key': INTERNAL_KEY, 'x-request-id': 'req_bench' },
        dispatcher: bareAgent,
      });
      const body = await response.body.json();
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
      return body;
    };

    await load(viaClient, WARMUP_MS / 2, emptySample());
    await load(bare, WARMUP_MS / 2, emptySample());
    const clientSample = emptySample();
    const bareSample = emptySample();
    for (let round = 0; round < ROUNDS; round += 1) {
      const order =
        round % 2 === 0
          ? [
              [viaClient, clientSample],
              [bare, bareSample],
            ]
          : [
              [bare, bareSample],
              [viaClient, clientSample],
            ];
      for (const [call, sample] of order as Array<[() => Promise<unknown>, Sample]>)
        await load(call, DURATION_MS / ROUNDS, sample);
    }
    const results = [summarize('client getAccount', clientSample), summarize('bare undici request', bareSample)];

    const dbKind = db.embedded ? 'PGlite (in memory)' : 'PostgreSQL';
    process.stdout.write(
      `\nbank-core client vs bare undici: GET /accounts/{iban}, ${CONCURRENCY} concurrent, ${DURATION_MS} ms each in ${ROUNDS} alternating rounds, ${dbKind}\n\n`,
    );
    const rows = [
      ['case', 'calls', 'errors', 'calls/s', 'p50 ms', 'p99 ms'],
      ...results.map((r) => [
        r.name,
        String(r.calls),
        String(r.errors),
        r.perSecond.toFixed(0),
        r.p50.toFixed(2),
        r.p99.toFixed(2),
      ]),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
    for (const row of rows)
      process.stdout.write(
        `${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}\n`,
      );
    const [viaRow, bareRow] = results;
    process.stdout.write(`\nclient overhead at p50: ${(viaRow!.p50 - bareRow!.p50).toFixed(2)} ms\n`);
    report({
      figure: 'getAccount calls/s through the client',
      value: viaRow!.perSecond,
      unit: '/s',
      limit: bareRow!.perSecond,
      limitName: 'bare undici request',
    });
  } finally {
    await bank.stop();
    await closeBankCoreAgent();
    await bareAgent.close();
    await db.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
