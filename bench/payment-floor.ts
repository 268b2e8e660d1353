/**
 * Issue 32 item 2, issue 53 item 4: a same-bank payment against its bare minimum, in one run. The
 * platform as `npm start` runs it (one process, PostgreSQL), sandbox bank cores in another
 * process, the merchant's webhook endpoint here.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/payment-floor.ts
 *   BENCH_DURATION_MS (default 10000 per phase), BENCH_CONCURRENCY (50), BENCH_ROUNDS (2)
 *
 * In alternating rounds at the same concurrency:
 *   platform       completed same-bank payments/s through the public API (bench/support/payment-flow.ts:
 *                  create, authorize, poll the status until COMPLETED), and the gateway process's CPU
 *                  per completed payment
 *   bare minimum   what any gateway must do for one, written by hand (bench/support/bare-payment.ts):
 *                  four statements on tables of its own (the session inserted; claimed with its
 *                  execution; the debit recorded; the credit recorded and COMPLETED with its event and
 *                  delivery row) on a pool of the platform's size, the three bank-core calls (verify,
 *                  debit, credit) through the platform's bank-core client, and the webhook POST
 *                  through its webhook sender, with nothing of the platform around them. Not the
 *                  platform's own statements replayed: that floor rose with every statement the
 *                  platform added, so the platform read 140-160% of it and it measured nothing.
 * Target (issues 32 and 53): the platform completes at least 50% of the bare minimum's payments/s.
 * The share is comparable across machines; payments/s and CPU milliseconds are not.
 */
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { DEFAULT_POOL_SIZE, openDatabase } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { createBankCoreClient, type CoreMovement } from '@gateway/bank-core-client';
import { createLogger, newSecret } from '@gateway/kernel';
import { createWebhookSender, signedHeaders } from '@gateway/subgraph-payments/testing';
import { BARE_SCHEMA, bareStatements } from './support/bare-payment';
import { startBenchBanks } from './support/bench-banks';
import { processCpuSeconds } from './support/cpu';
import { benchAgent } from './support/http';
import { launchPlatform } from './support/launcher';
import { printTable, runLoad, type LoadResult } from './support/load';
import { seedPaymentFlow, UNLIMITED } from './support/payment-flow';
import { report } from './support/results';

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
  const platform = await launchPlatform({ DATABASE_URL: db.url, RATE_LIMITS: UNLIMITED });
  const internalKey = newSecret('sik_');
  const banks = await startBenchBanks(db.url, internalKey);
  const receiver = webhookReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/hook`;
  const direct = await openDatabase({ url: db.url, poolSize: DEFAULT_POOL_SIZE });
  const sender = createWebhookSender({ policy: { privateTargets: true } });
  try {
    const flow = await seedPaymentFlow(platform, banks, CONCURRENCY, webhookUrl);
    const payment = flow.pay(flow.payeeSame);
    await runLoad('warm-up', { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, payment);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the warm-up's webhooks delivered

    // The bare minimum: four statements written by hand, the three core calls and the webhook POST, nothing else.
    for (const statement of BARE_SCHEMA) await direct.knex.raw(statement);
    const bare = bareStatements(direct.knex, webhookUrl);
    const bank = banks.banks[0]!;
    const core = createBankCoreClient({
      bankHandle: bank.handle,
      baseUrl: bank.url,
      internalKey: banks.internalKeyOf(bank.handle),
      logger: createLogger('payment-floor', 'silent'),
    });
    const secret = newSecret('whsec_');
    let firstFailure: unknown;
    const floor = (worker: number) =>
      floorPayment(worker).catch((error: unknown) => {
        firstFailure ??= error;
        throw error;
      });
    // Where a bare payment's time goes (ms summed over every payment, each part in turn).
    const spent = { 'bank-core calls': 0, 'SQL statements': 0, 'webhook POST': 0 };
    let parted = 0;
    const timed = async <T>(part: keyof typeof spent, work: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const result = await work();
      spent[part] += performance.now() - t0;
      return result;
    };
    /** What the core booked it as: its transaction id, or the payment's reference when it said none. */
    const referenceOf = (movement: CoreMovement, reference: string) => movement.transactionId ?? reference;
    const floorPayment = async (worker: number) => {
      const payer = flow.payers[worker % flow.payers.length]!;
      const payment = await timed('SQL statements', () => bare.create('mer_bench', 1_000, 'LYD'));
      await timed('bank-core calls', () => core.verifyCustomer({ customerRef: payer.customerRef, otp: payer.otp }));
      await timed('SQL statements', () => bare.claim(payment, payer.alias));
      const order = { amount: 1_000, currency: 'LYD' as const, reference: payment.sessionId, description: 'bench' };
      const debit = await timed('bank-core calls', () => core.debit({ iban: payer.iban, ...order }));
      await timed('SQL statements', () => bare.debited(payment, referenceOf(debit, order.reference)));
      const credit = await timed('bank-core calls', () => core.credit({ iban: flow.payeeSame.iban, ...order }));
      const { eventId, payload } = await timed('SQL statements', () =>
        bare.completed(payment, referenceOf(credit, order.reference)),
      );
      await timed('webhook POST', async () => {
        const sent = await sender.post(webhookUrl, payload, signedHeaders(payload, eventId, secret, new Date()));
        if (sent.statusCode !== 200) throw new Error(`webhook: ${sent.error ?? sent.statusCode}`);
      });
      parted += 1;
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
    console.log(`a bare payment's time, mean of ${parted} (warm-up included): ${parts}`);
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
      note: `platform ${platformRate.toFixed(1)}/s, bare minimum ${floorRate.toFixed(1)}/s (4 statements written by hand, 3 core calls, 1 webhook POST)`,
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
