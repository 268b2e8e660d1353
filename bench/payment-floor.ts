/**
 * Issue 32 item 2: a same-bank payment against its bare minimum, in one run. The platform as
 * `npm start` runs it (one process, PostgreSQL) with a probe that records the SQL statements it
 * sends (bench/support/statement-recorder.ts), sandbox bank cores in another process, the
 * merchant's webhook endpoint here.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/payment-floor.ts
 *   BENCH_DURATION_MS (default 10000 per phase), BENCH_CONCURRENCY (50), BENCH_ROUNDS (2),
 *   BENCH_FLOOR_DUMP=<file>: the recorded statements, and those replayed, as JSON
 *
 * First one same-bank payment is recorded (create, authorize, COMPLETED, its webhooks delivered),
 * and a quiet window as long, whose polling is taken out of it (bench/support/replay.ts). Then,
 * in alternating rounds at the same concurrency:
 *   platform       completed same-bank payments/s through the public API (bench/support/payment-flow.ts),
 *                  and the gateway process's CPU per completed payment
 *   bare minimum   the recorded statements sent again straight to PostgreSQL on a pool of the
 *                  platform's size (transactions as they were, fresh ids for the rows a payment
 *                  makes), the three bank-core calls (verify, debit, credit) through the platform's
 *                  bank-core client and the three webhook POSTs through its webhook sender, with
 *                  nothing of the platform around them
 * Target (issue 32): the platform completes at least 50% of the bare minimum's payments/s. The
 * share is comparable across machines; payments/s and CPU milliseconds are not.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { DEFAULT_POOL_SIZE, openDatabase } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { createBankCoreClient } from '@gateway/bank-core-client';
import { createLogger, newId, newSecret } from '@gateway/kernel';
import { createWebhookSender, signedHeaders } from '@gateway/subgraph-payments/testing';
import { startBenchBanks } from './support/bench-banks';
import { processCpuSeconds } from './support/cpu';
import { benchAgent, ok } from './support/http';
import { freePort, launchPlatform } from './support/launcher';
import { printTable, runLoad, type LoadResult } from './support/load';
import { seedPaymentFlow, UNLIMITED } from './support/payment-flow';
import { replayer, units, withoutPolling } from './support/replay';
import { report } from './support/results';
import type { RecordedStatement } from './support/statement-recorder';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARMUP_MS = 2_000;
const TARGET_SHARE = 50;

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

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error('bench/payment-floor.ts measures against PostgreSQL: set DATABASE_URL.');
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
  const sender = createWebhookSender({ policy: { privateTargets: true } });
  const recorder = (path: string) => ok('POST', `http://127.0.0.1:${recorderPort}${path}`);
  try {
    const flow = await seedPaymentFlow(platform, banks, CONCURRENCY, webhookUrl);
    const payment = flow.pay(flow.payeeSame);
    await runLoad('warm-up', { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, payment);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the warm-up's webhooks delivered

    // One payment, to its last webhook (no new event for 1 s), then a quiet window as long.
    await recorder('/start');
    const started = Date.now();
    // As bench/statements.ts counts a payment: created, authorized, then its webhooks (no status polls).
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
    const recorded = (await recorder('/stop')) as RecordedStatement[];
    const webhooks = receiver.eventsOf(id);
    await recorder('/start');
    await new Promise((resolve) => setTimeout(resolve, Date.now() - started));
    const statements = withoutPolling(recorded, (await recorder('/stop')) as RecordedStatement[]);
    if (process.env.BENCH_FLOOR_DUMP)
      writeFileSync(process.env.BENCH_FLOOR_DUMP, JSON.stringify({ recorded, statements }, null, 1));
    console.log(
      `one same-bank payment: ${statements.length} statements (${recorded.length} recorded, polling taken out) in ${units(statements).length} transactions or lone statements, ${webhooks} webhooks`,
    );

    // The bare minimum: the same statements, the three core calls and the webhook POSTs, nothing else.
    const bank = banks.banks[0]!;
    const core = createBankCoreClient({
      bankHandle: bank.handle,
      baseUrl: bank.url,
      internalKey: banks.internalKeyOf(bank.handle),
      logger: createLogger('payment-floor', 'silent'),
    });
    const bySql = new Map<string, number>();
    const replay = replayer(direct.knex, statements, bySql);
    const secret = newSecret('whsec_');
    let firstFailure: unknown;
    const floor = (worker: number) =>
      floorPayment(worker).catch((error: unknown) => {
        firstFailure ??= error;
        throw error;
      });
    // Where a bare payment's time goes (ms summed over every payment, each part in turn).
    const spent = { 'bank-core calls': 0, 'SQL statements': 0, 'webhook POSTs': 0 };
    let parted = 0;
    const timed = async (part: keyof typeof spent, work: () => Promise<unknown>) => {
      const t0 = performance.now();
      await work();
      spent[part] += performance.now() - t0;
    };
    const floorPayment = async (worker: number) => {
      const payer = flow.payers[worker % flow.payers.length]!;
      const reference = newId('paymentSession');
      await timed('bank-core calls', async () => {
        await core.verifyCustomer({ customerRef: payer.customerRef, otp: payer.otp });
        await core.debit({ iban: payer.iban, amount: 1_000, currency: 'LYD', reference, description: 'bench' });
        await core.credit({
          iban: flow.payeeSame.iban,
          amount: 1_000,
          currency: 'LYD',
          reference,
          description: 'bench',
        });
      });
      const recordedPayer = flow.payers[0]!;
      await timed('SQL statements', () =>
        replay([
          [recordedPayer.alias, payer.alias],
          [recordedPayer.iban, payer.iban],
          [recordedPayer.customerRef, payer.customerRef],
        ]),
      );
      await timed('webhook POSTs', () => webhooksOf(reference));
      parted += 1;
    };
    const webhooksOf = async (reference: string) => {
      for (let i = 0; i < 3; i += 1) {
        const eventId = newId('event');
        const body = JSON.stringify({ id: eventId, event: 'payment.completed', data: { session_id: reference } });
        const sent = await sender.post(webhookUrl, body, signedHeaders(body, eventId, secret, new Date()));
        if (sent.statusCode !== 200) throw new Error(`webhook: ${sent.error ?? sent.statusCode}`);
      }
    };
    const warm = await runLoad('bare minimum (warm-up)', { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, floor);
    if (warm.errors > 0) throw new Error(`the bare minimum failed: ${String(firstFailure)}`);

    const results: LoadResult[] = [];
    const cpuPerPayment: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const cpuBefore = processCpuSeconds(platform.pid);
      const paid = await runLoad(
        `platform, same bank #${round}`,
        { concurrency: CONCURRENCY, durationMs: DURATION_MS },
        payment,
      );
      cpuPerPayment.push((1000 * (processCpuSeconds(platform.pid) - cpuBefore)) / paid.requests);
      results.push(paid);
      results.push(
        await runLoad(`bare minimum #${round}`, { concurrency: CONCURRENCY, durationMs: DURATION_MS }, floor),
      );
    }
    const rate = (prefix: string) => {
      const rows = results.filter((r) => r.name.startsWith(prefix));
      return rows.reduce((sum, r) => sum + r.requests, 0) / rows.reduce((sum, r) => sum + r.seconds, 0);
    };
    const platformRate = rate('platform');
    const floorRate = rate('bare minimum');
    const share = (100 * platformRate) / floorRate;
    const cpu = cpuPerPayment.reduce((a, b) => a + b, 0) / cpuPerPayment.length;
    const parts = Object.entries(spent)
      .map(([part, ms]) => `${part} ${(ms / parted).toFixed(1)} ms`)
      .join(', ');
    console.log(`\nsame-bank payment against its bare minimum, ${CONCURRENCY} concurrent, PostgreSQL, one process`);
    printTable(results);
    console.log(`a bare payment's time, mean of ${parted} (warm-up included): ${parts}; its slowest statements:`);
    for (const [shape, ms] of [...bySql].sort((a, b) => b[1] - a[1]).slice(0, 5))
      console.log(`  ${(ms / parted).toFixed(1).padStart(7)} ms  ${shape}`);
    console.log(
      `\nplatform ${platformRate.toFixed(1)}/s = ${share.toFixed(0)}% of the bare minimum's ${floorRate.toFixed(1)}/s (target >= ${TARGET_SHARE}%); gateway CPU ${cpu.toFixed(1)} ms per completed payment (${cpuPerPayment.map((v) => v.toFixed(1)).join(', ')})`,
    );
    report({
      figure: 'completed same-bank payments/s, share of their bare minimum (one process)',
      value: share,
      unit: '%',
      ratio: true,
      target: TARGET_SHARE,
      comparison: '>=',
      note: `platform ${platformRate.toFixed(1)}/s, bare minimum ${floorRate.toFixed(1)}/s (${statements.length} statements, 3 core calls, 3 webhook POSTs)`,
    });
    report({ figure: 'gateway CPU per completed same-bank payment (one process)', value: cpu, unit: 'ms' });
  } finally {
    receiver.server.close();
    await sender.close();
    await direct.close();
    await banks.stop();
    await platform.stop();
    await benchAgent.close();
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
