/// <reference path="../router/src/types/ws-modules.d.ts" />
/**
 * Events benchmark: state change -> webhook received, and state change -> subscription message
 * with 2,000 concurrent subscribers on one router, plus that router process's memory.
 * Targets: webhook p99 < 250 ms; subscription p99 < 100 ms at 2,000 subscribers.
 *
 *   node -r ./scripts/register.js bench/events.ts      (DATABASE_URL: a fresh database on that server; AMQP_URL when set)
 *   BENCH_PAYMENTS=150 BENCH_SUBSCRIBERS=2000 BENCH_CONCURRENCY=5 ...
 *
 * The platform runs as `npm start` does, in its own process (one process: router, subgraphs,
 * relay and dispatcher together); the bank core, the merchant's receiver and the subscribers run
 * here. "State change" is the moment the payments subgraph made the move: the event's
 * created_at, written in the same transaction. Every run is bounded and ends by itself.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomInt } from 'node:crypto';
import { composeIBAN } from 'ibantools';
import { WebSocket } from 'ws';
import { openDatabase } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { startSandboxBank } from '@gateway/bank-sandbox';
import { createLogger, newSecret } from '@gateway/kernel';
import { launchPlatform } from './support/launcher';
import { report } from './support/results';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 150);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 5);
/** Subscribers per session: two documents each (a checkout-like and a dashboard-like selection). */
const PER_SESSION = 2;
const DEADLINE_MS = 600_000;

const deadline = setTimeout(() => {
  console.error(`benchmark did not finish within ${DEADLINE_MS / 1000} s`);
  process.exit(1);
}, DEADLINE_MS);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const iban = (code: string, n: number) =>
  composeIBAN({ countryCode: 'LY', bban: `${code}001${String(n).padStart(15, '0')}` })!;

async function json(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body)}`);
  return body as any;
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** The merchant's endpoint: when each event arrived, and when its state change happened. */
function startReceiver() {
  const events = new Map<
    string,
    { kind: string; sessionId: string; status: string; createdAt: number; receivedAt: number }
  >();
  const byMove = new Map<string, number>(); // `${sessionId}:${status}` -> created_at
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const receivedAt = Date.now();
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const createdAt = Date.parse(envelope.created_at);
      if (!events.has(envelope.id))
        events.set(envelope.id, {
          kind: envelope.event,
          sessionId: envelope.data.session_id,
          status: envelope.data.status,
          createdAt,
          receivedAt,
        });
      byMove.set(`${envelope.data.session_id}:${envelope.data.status}`, createdAt);
      response.writeHead(200).end();
    });
  });
  return new Promise<{ url: string; events: typeof events; byMove: typeof byMove; close(): void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
        events,
        byMove,
        close: () => server.close(),
      }),
    ),
  );
}

/** A subscriber as a browser would be: graphql-ws over a WebSocket, recording each message's arrival. */
function subscriber(
  wsUrl: string,
  apiKey: string,
  sessionId: string,
  query: string,
  onMessage: (status: string, at: number) => void,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
    let first = true;
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${apiKey}` } })),
    );
    socket.on('message', (raw: Buffer) => {
      const at = Date.now();
      const message = JSON.parse(raw.toString());
      if (message.type === 'connection_ack')
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables: { id: sessionId } } }));
      else if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      else if (message.type === 'next') {
        if (first) {
          first = false;
          resolve(socket); // the current state: the subscription is live
        } else onMessage(message.payload.data.paymentSessionUpdated.status, at);
      } else if (message.type === 'error') reject(new Error(JSON.stringify(message.payload)));
    });
    socket.on('error', reject);
  });
}

async function main() {
  // A database of its own (dropped afterwards): sessions left by earlier runs would expire during
  // this one and flood the pipeline being measured.
  const own = process.env.DATABASE_URL ? await openTestDatabase() : undefined;
  const platform = await launchPlatform({
    ...(own ? { DATABASE_URL: own.url } : {}),
    // Events cross RabbitMQ when the run has it, as they do between processes.
    ...(process.env.AMQP_URL ? { AMQP_URL: process.env.AMQP_URL } : {}),
    LOG_LEVEL: 'error',
    RATE_LIMITS: JSON.stringify({
      read: { points: 10_000_000 },
      write: { points: 10_000_000 },
      session_create: { points: 10_000_000 },
    }),
  });
  const ledger = await openDatabase();
  const admin = { 'x-service-admin-key': platform.adminKey };
  const code = String(800 + randomInt(0, 99));
  const internalKey = newSecret('sik_');
  const bank = await startSandboxBank({
    handle: `bench${code}`,
    institutionCode: code,
    internalKey,
    db: ledger,
    logger: createLogger('bench', 'silent'),
    confirmDelayMs: { min: 5, max: 10 },
  });
  const receiver = await startReceiver();
  try {
    const registered = await json(`${platform.restUrl}/banks`, {
      method: 'POST',
      headers: admin,
      body: {
        bank_handle: bank.handle,
        display_name: 'Bench Bank',
        country: 'LY',
        core_base_url: bank.url,
        settlement_account_iban: iban(code, 1),
        contact_email: 'ops@bench.ly',
        institution_code: code,
        internal_key: internalKey,
      },
    });
    await bank.configureGateway({ url: platform.restUrl, bankKey: registered.bank_key });
    const customer = async (n: number, balance: number) => {
      const ref = `bench-${n}`;
      const account = await bank.openAccount({
        customerRef: ref,
        holderName: `Customer ${n}`,
        currency: 'LYD',
        balance,
      });
      await bank.setOtp(ref, '123456');
      const alias = `bench${code}c${n}`;
      await json(`${platform.restUrl}/v1/identity/claim`, {
        method: 'POST',
        headers: { 'x-service-bank-key': registered.bank_key },
        body: { npt_handle: alias, iban: account.iban, customer_display_name: `Customer ${n}`, bank_customer_ref: ref },
      });
      return alias;
    };
    const payee = await customer(0, 0);
    const payers = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => customer(i + 1, 1_000_000_000)));
    const merchant = await json(`${platform.restUrl}/merchants`, {
      method: 'POST',
      headers: admin,
      body: { name: 'Bench Shop', mode: 'live', webhook_url: receiver.url },
    });
    const key = { authorization: `Bearer ${merchant.api_key}` };
    const createSession = async () =>
      (
        await json(`${platform.restUrl}/payments/sessions`, {
          method: 'POST',
          headers: key,
          body: { amount: 100, currency: 'LYD', destination: { type: 'alias', value: payee } },
        })
      ).session_id as string;
    let payerTurn = 0;
    const pay = async (sessionId: string) => {
      const payer = payers[payerTurn++ % payers.length]!;
      await json(`${platform.restUrl}/pay/${sessionId}/authorize`, {
        method: 'POST',
        body: { payer: { type: 'alias', value: payer }, otp: '123456' },
      });
    };
    const waitFor = async (what: string, done: () => boolean, ms = 60_000) => {
      const until = Date.now() + ms;
      while (!done()) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    // Warm-up: a few payments so that JIT, pools and queues are in their steady state.
    await pool(await Promise.all(Array.from({ length: 10 }, createSession)), CONCURRENCY, pay);
    await waitFor('warm-up webhooks', () => receiver.events.size >= 30);
    receiver.events.clear();

    // Phase 1: webhooks, in a steady state: CONCURRENCY shoppers each create a session and pay it.
    receiver.events.clear();
    await pool(
      Array.from({ length: PAYMENTS }, (_, i) => i),
      CONCURRENCY,
      async () => pay(await createSession()),
    );
    await waitFor('phase 1 webhooks', () => receiver.events.size >= PAYMENTS * 3);
    const webhookLatencies = [...receiver.events.values()].map((e) => e.receivedAt - e.createdAt);

    // Phase 2: 2,000 subscribers on one router, PER_SESSION per session, then payments of some of them.
    const rssBefore = platform.pid ? rssMiB(platform.pid) : NaN;
    const sessions: string[] = [];
    await pool(
      Array.from({ length: Math.ceil(SUBSCRIBERS / PER_SESSION) }, (_, i) => i),
      CONCURRENCY,
      async () => void sessions.push(await createSession()),
    );
    // Their payment.initiated webhooks drain before anything is measured.
    await waitFor('payment.initiated of the subscribed sessions', () =>
      sessions.every((id) => receiver.byMove.has(`${id}:PENDING`)),
    );
    const wsUrl = `${platform.routerUrl.replace(/^http/, 'ws')}/graphql`;
    const documents = [
      'subscription($id: ID!) { paymentSessionUpdated(id: $id) { status } }',
      'subscription($id: ID!) { paymentSessionUpdated(id: $id) { id status amount currency creditorBank { handle displayName } } }',
    ];
    const messages: Array<{ sessionId: string; status: string; at: number }> = [];
    const sockets: WebSocket[] = [];
    await pool(
      sessions.flatMap((sessionId) => documents.slice(0, PER_SESSION).map((query) => ({ sessionId, query }))),
      50,
      async ({ sessionId, query }) => {
        sockets.push(
          await subscriber(wsUrl, merchant.api_key, sessionId, query, (status, at) =>
            messages.push({ sessionId, status, at }),
          ),
        );
      },
    );
    const rssConnected = platform.pid ? rssMiB(platform.pid) : NaN;
    const paid = sessions.slice(0, PAYMENTS);
    await pool(paid, CONCURRENCY, pay);
    await waitFor('phase 2 messages', () => messages.length >= paid.length * 2 * PER_SESSION);
    await waitFor('phase 2 webhooks (event times)', () => paid.every((id) => receiver.byMove.has(`${id}:COMPLETED`)));
    const rssAfter = platform.pid ? rssMiB(platform.pid) : NaN;
    const subscriptionLatencies = messages
      .map((m) => m.at - receiver.byMove.get(`${m.sessionId}:${m.status}`)!)
      .filter(Number.isFinite);
    for (const socket of sockets) socket.terminate();

    const row = (name: string, values: number[], target: number) =>
      `${name.padEnd(44)} n=${String(values.length).padStart(5)}  p50 ${String(percentile(values, 50)).padStart(4)} ms  p99 ${String(percentile(values, 99)).padStart(4)} ms  max ${String(Math.max(...values)).padStart(5)} ms  target p99 < ${target} ms: ${percentile(values, 99) < target ? 'met' : 'MISSED'}`;
    console.log('');
    console.log(
      `Events benchmark (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, ${process.env.AMQP_URL ? 'RabbitMQ' : 'in-process bus'}; ${PAYMENTS} payments per phase, ${CONCURRENCY} at a time)`,
    );
    console.log(row('state change -> webhook received', webhookLatencies, 250));
    console.log(row(`state change -> subscription message (${sockets.length} subs)`, subscriptionLatencies, 100));
    report({
      figure: 'state change -> webhook received, p99',
      value: percentile(webhookLatencies, 99),
      unit: 'ms',
      target: 250,
      comparison: '<',
    });
    report({
      figure: `state change -> subscription message, p99, ${sockets.length} subscribers`,
      value: percentile(subscriptionLatencies, 99),
      unit: 'ms',
      target: 100,
      comparison: '<',
    });
    console.log(
      `platform process RSS (router and subgraphs in one process): ${rssBefore.toFixed(0)} MiB before subscribers, ${rssConnected.toFixed(0)} MiB with ${sockets.length} subscribed, ${rssAfter.toFixed(0)} MiB after the payments`,
    );
    console.log('');
  } finally {
    receiver.close();
    await bank.stop();
    await platform.stop();
    await ledger.close();
    await own?.close();
    clearTimeout(deadline);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
