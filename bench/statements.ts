/**
 * SQL statements per payment on the gateway's side (issue 15 item 2): the platform as `npm start`
 * runs it (one process, PostgreSQL), with a probe preloaded that counts every statement it sends
 * (bench/support/statement-counter.ts: each query of the driver, BEGIN and COMMIT included).
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/statements.ts
 *   BENCH_STATEMENTS_PAYMENTS (default 20 of each kind), BENCH_STATEMENTS_CONCURRENCY (default 10),
 *   BENCH_STATEMENTS_TOP (default 15 rows of the breakdown)
 *
 * Payments run one at a time, each to its end: a session created; a same-bank and a cross-bank
 * payment (create, authorize, COMPLETED, the merchant's payment.completed webhook received); then
 * the same with BENCH_STATEMENTS_CONCURRENCY payers at once, where the relay and the webhook
 * dispatcher take several events per statement. The
 * merchant has a webhook endpoint here, so outbox relay, webhook intake and delivery are counted.
 * The platform's jobs poll while nothing happens (outbox relays, recovery, expiry, dispatcher):
 * their rate is measured over a quiet window first, statement by statement, and subtracted, and
 * printed on its own. Per statement and at most what was sent: a relay woken by each commit does
 * not poll meanwhile, and its quiet-time polls, subtracted from the whole, made a payment look
 * cheaper than it is.
 * Targets (issue 53 item 5): at most 10 statements per completed same-bank payment, and at most 2
 * statements a second while idle (the jobs' polling, measured over the quiet window).
 */
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { openTestDatabase } from '@gateway/db/testing';
import { newSecret } from '@gateway/kernel';
import {
  benchCustomer,
  registerBenchBanks,
  startBenchBanks,
  type BenchBank,
  type BenchCustomer,
} from './support/bench-banks';
import { benchAgent, ok } from './support/http';
import { freePort, launchPlatform } from './support/launcher';
import { report } from './support/results';

const PAYMENTS = Number(process.env.BENCH_STATEMENTS_PAYMENTS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_STATEMENTS_CONCURRENCY ?? 10);
const TOP = Number(process.env.BENCH_STATEMENTS_TOP ?? 15);
const QUIET_MS = 5_000;
const TARGET_SAME_BANK = 10;
const TARGET_IDLE_PER_SECOND = 2;

interface Counts {
  total: number;
  byText: Record<string, number>;
}

/** The merchant's webhook endpoint: answers 200 and tells who waits for an event of a session. */
function webhookReceiver(): { server: Server; completed(sessionId: string): Promise<void> } {
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      response.end();
      const event = JSON.parse(body) as { event: string; data: { session_id?: string } };
      const id = event.data.session_id;
      if (event.event !== 'payment.completed' || !id) return;
      seen.add(id);
      waiting.get(id)?.();
    });
  });
  return {
    server,
    completed: (sessionId) =>
      seen.has(sessionId) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(sessionId, resolve)),
  };
}

const diff = (after: Counts, before: Counts): Counts => ({
  total: after.total - before.total,
  byText: Object.fromEntries(Object.entries(after.byText).map(([text, n]) => [text, n - (before.byText[text] ?? 0)])),
});

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error(
      'bench/statements.ts counts against PostgreSQL: set DATABASE_URL (e.g. postgresql://postgres@127.0.0.1:5432/test).',
    );
    process.exit(2);
  }
  const db = await openTestDatabase();
  const probePort = await freePort();
  // One client sends everything: the per-merchant limits would refuse the run, not measure it.
  const unlimited = JSON.stringify({ session_create: { points: 1e9 }, write: { points: 1e9 }, read: { points: 1e9 } });
  const platform = await launchPlatform(
    { DATABASE_URL: db.url, RATE_LIMITS: unlimited, BENCH_STATEMENTS_PORT: String(probePort) },
    ['./bench/support/statement-counter.ts'],
  );
  const banks = await startBenchBanks(db.url, newSecret('sik_'));
  const receiver = webhookReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/hook`;
  const counts = async (): Promise<Counts> => ok('GET', `http://127.0.0.1:${probePort}/`);
  try {
    const bankKeys = await registerBenchBanks(platform, banks);
    const [a, b] = banks.banks as [BenchBank, BenchBank];
    const payers: BenchCustomer[] = [];
    for (let i = 0; i < CONCURRENCY; i += 1)
      payers.push(await benchCustomer(platform, banks, bankKeys[a.handle]!, a, `payer${i}`, 1_000_000_000));
    const payeeSame = await benchCustomer(platform, banks, bankKeys[a.handle]!, a, 'shop', 0);
    const payeeCross = await benchCustomer(platform, banks, bankKeys[b.handle]!, b, 'shop', 0);
    const merchant = await ok(
      'POST',
      `${platform.restUrl}/merchants`,
      { name: 'Bench Shop', mode: 'live', webhook_url: webhookUrl },
      { 'x-service-admin-key': platform.adminKey },
    );
    const auth = { authorization: `Bearer ${merchant.api_key}` };
    const create = async (payee: BenchCustomer): Promise<string> =>
      (
        await ok(
          'POST',
          `${platform.restUrl}/payments/sessions`,
          { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: 'bench' },
          auth,
        )
      ).session_id;
    const pay = async (payee: BenchCustomer, payer = payers[0]!) => {
      const id = await create(payee);
      const delivered = receiver.completed(id);
      await ok('POST', `${platform.restUrl}/pay/${id}/authorize`, {
        payer: { type: 'alias', value: payer.alias },
        otp: payer.otp,
      });
      await delivered;
    };
    let turn = 0;
    const inTurn = () => payers[turn++ % payers.length]!;
    // Warm-up: one of each, so first-use work (plans, caches, prepared shapes) is not counted.
    await pay(payeeSame);
    await pay(payeeCross);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const quietBefore = await counts();
    const quietStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const quiet = diff(await counts(), quietBefore);
    const quietSeconds = (performance.now() - quietStarted) / 1000;
    const pollingPerSecond = quiet.total / quietSeconds;
    /** The polling in a phase of `seconds`: each idle statement at its quiet rate, at most as often as it was sent. */
    const pollingIn = (measured: Counts, seconds: number): number =>
      Object.entries(quiet.byText).reduce(
        (sum, [text, n]) => sum + Math.min(measured.byText[text] ?? 0, (n / quietSeconds) * seconds),
        0,
      );

    /** `PAYMENTS` runs of `run`, `concurrency` at a time (worker w pays from payer w). */
    const repeat = async (concurrency: number, run: (worker: number) => Promise<unknown>) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async (_, worker) => {
          while (next < PAYMENTS) {
            next += 1;
            await run(worker);
          }
        }),
      );
    };
    // `targeted`: issue 15's at most 12 statements per completed same-bank payment.
    const cases: Array<{
      name: string;
      concurrency: number;
      run: (worker: number) => Promise<unknown>;
      targeted?: boolean;
    }> = [
      { name: 'session created (POST /payments/sessions)', concurrency: 1, run: () => create(payeeSame) },
      // One at a time, each from the next payer in turn, as a shop's checkouts come (one payer again
      // at once would let its OTP give-back ride on its own next take, which real traffic seldom does).
      { name: 'payment completed, same bank', concurrency: 1, run: () => pay(payeeSame, inTurn()), targeted: true },
      { name: 'payment completed, cross bank (rail)', concurrency: 1, run: () => pay(payeeCross, inTurn()) },
      { name: `session created, ${CONCURRENCY} at once`, concurrency: CONCURRENCY, run: () => create(payeeSame) },
      {
        name: `payment completed, same bank, ${CONCURRENCY} at once`,
        concurrency: CONCURRENCY,
        run: (worker) => pay(payeeSame, payers[worker]),
        targeted: true,
      },
      {
        name: `payment completed, cross bank, ${CONCURRENCY} at once`,
        concurrency: CONCURRENCY,
        run: (worker) => pay(payeeCross, payers[worker]),
      },
    ];
    const rows: Array<{ name: string; perPayment: number; breakdown: Counts }> = [];
    for (const { name, concurrency, run, targeted } of cases) {
      const before = await counts();
      const started = performance.now();
      await repeat(concurrency, run);
      const measured = diff(await counts(), before);
      const polling = pollingIn(measured, (performance.now() - started) / 1000);
      rows.push({ name, perPayment: (measured.total - polling) / PAYMENTS, breakdown: measured });
      report({
        figure: `SQL statements per ${name}`,
        value: rows.at(-1)!.perPayment,
        unit: 'statements',
        ...(targeted ? { target: TARGET_SAME_BANK, comparison: '<=' as const } : {}),
      });
    }

    report({
      figure: 'SQL statements a second while idle (jobs polling)',
      value: pollingPerSecond,
      unit: 'statements/s',
      target: TARGET_IDLE_PER_SECOND,
      comparison: '<=',
    });
    console.log(`\nSQL statements sent by the platform process (one process, PostgreSQL), ${PAYMENTS} of each`);
    console.log(
      `  jobs polling while idle: ${pollingPerSecond.toFixed(1)} statements/s (subtracted below, statement by statement)`,
    );
    for (const row of rows)
      console.log(`  ${row.name.padEnd(46)} ${row.perPayment.toFixed(1).padStart(6)} statements each`);
    for (const row of rows.slice(0, 3)) {
      console.log(`\n${row.name}: the statements sent most (per payment, polling included)`);
      const top = Object.entries(row.breakdown.byText)
        .filter(([, n]) => n > 0)
        .sort((x, y) => y[1] - x[1])
        .slice(0, TOP);
      // Its beginning and its end: statements sharing a beginning (a relay's) differ at the end.
      const shown = (text: string) => (text.length <= 170 ? text : `${text.slice(0, 110)} … ${text.slice(-55)}`);
      for (const [text, n] of top) console.log(`  ${(n / PAYMENTS).toFixed(2).padStart(6)}  ${shown(text)}`);
    }
    const same = rows[1]!.perPayment;
    console.log(
      `\nTargets: at most ${TARGET_SAME_BANK} statements per completed same-bank payment: ${same.toFixed(1)}, ${same <= TARGET_SAME_BANK ? 'met' : 'NOT met'}; at most ${TARGET_IDLE_PER_SECOND} statements a second while idle: ${pollingPerSecond.toFixed(1)}, ${pollingPerSecond <= TARGET_IDLE_PER_SECOND ? 'met' : 'NOT met'}`,
    );
  } finally {
    receiver.server.close();
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
