import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import { testAmqpUrl } from '@gateway/events/testing';
import { startCluster, type Cluster } from '../../scripts/cluster/cluster';
import { createScratch, type Scratch } from '../../scripts/launcher/scratch';
import { SERVICES } from '../../scripts/launcher/split-layout';

// CI runs this on PostgreSQL and RabbitMQ (testAmqpUrl throws there without AMQP_URL; so does a
// missing DATABASE_URL below); elsewhere it runs when both are given.
const amqpUrl = testAmqpUrl();
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl && process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL is not set');

interface Answer {
  status: number;
  body: any;
}

async function call(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    } catch {
      return { status: response.status, body: text.slice(0, 200) };
    }
  } catch (error) {
    // No answer at all (connection refused or reset, timeout): a failure the client saw.
    return { status: 0, body: String(error) };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 17 item 3: two instances of every service behind HAProxy; while a stream of payments goes
 * through the public address, every instance gets SIGTERM (it drains, exits 0) and is started
 * again, one instance of each service at a time: the second only once HAProxy sends requests to
 * the first again. No client request may fail, no money may move twice or get lost.
 */
(amqpUrl && databaseUrl ? describe : describe.skip)('cluster: rolling restart under load', () => {
  let scratch: Scratch;
  let cluster: Cluster | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-cluster-'));

  beforeAll(async () => {
    scratch = await createScratch('cluster', databaseUrl!, amqpUrl!);
    const began = Date.now();
    cluster = await startCluster({
      replicas: 2,
      databaseUrl: scratch.databaseUrl,
      amqpUrl: scratch.amqpUrl,
      platformSecret: newSecret('pls_'),
      adminKey: newSecret('adm_'),
      dataDir,
      publicPort: 0,
      // Checks twice a second: an instance is out within about a second, and the drain (1.5 s) outlasts that.
      check: { intervalMs: 500, fall: 2, rise: 2 },
      env: { LOG_LEVEL: 'error' },
      // One client sends everything: the public per-merchant limits are not what is tested here.
      serviceEnv: {
        router: {
          RATE_LIMITS: JSON.stringify({
            session_create: { points: 1e9 },
            write: { points: 1e9 },
            read: { points: 1e9 },
          }),
        },
      },
      demo: { sandboxPortBase: 0 },
    });
    process.stdout.write(
      `cluster of ${cluster.layout.instances.length} instances started in ${((Date.now() - began) / 1000).toFixed(1)} s\n`,
    );
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('loses no request, completes every payment once and conserves money', async () => {
    const { publicUrl, banks } = cluster!;
    const demo = banks!.ready.demo!;
    // The live demo merchant: its payments move the sandbox banks' money, which this test counts.
    const auth = { authorization: `Bearer ${demo.live_merchant!.api_key}` };
    const ledgers = async () =>
      Promise.all(
        demo.banks.map(async (bank) => {
          const answer = await call('GET', `${bank.core_base_url}/sandbox/ledger`, undefined, {
            'x-service-internal-key': bank.internal_key,
          });
          expect(answer.status).toBe(200);
          return answer.body as {
            accounts: Array<{ balance: number }>;
            transactions: Array<{ credit_debit_indicator: string; reference: string }>;
          };
        }),
      );
    const total = async () =>
      (await ledgers()).reduce(
        (sum, ledger) => sum + ledger.accounts.reduce((s, account) => s + Number(account.balance), 0),
        0,
      );
    const moneyBefore = await total();

    // Same bank and cross bank (rail, confirmed by the creditor bank later), both ways.
    const pairs = [
      ['amina', 'layla'],
      ['layla', 'yusuf'],
      ['amina', 'omar'],
      ['yusuf', 'amina'],
    ] as const;
    const otp = Object.fromEntries(demo.customers.map((c) => [c.alias, c.otp]));
    const failures: string[] = [];
    const sessions: string[] = [];
    let driving = true;
    let n = 0;
    // Which instance was being restarted when a request failed.
    let restarting = 'none';
    const pay = async () => {
      const [payer, payee] = pairs[n++ % pairs.length]!;
      const created = await call(
        'POST',
        `${publicUrl}/payments/sessions`,
        { amount: 100 + (n % 900), currency: 'LYD', destination: { type: 'alias', value: payee } },
        { ...auth, 'idempotency-key': `roll-${randomBytes(8).toString('hex')}` },
      );
      if (created.status !== 201)
        return void failures.push(
          `create ${created.status} ${JSON.stringify(created.body)} (restarting ${restarting})`,
        );
      sessions.push(created.body.session_id);
      const authorized = await call('POST', `${publicUrl}/pay/${created.body.session_id}/authorize`, {
        payer: { type: 'alias', value: payer },
        otp: otp[payer],
      });
      if (authorized.status !== 200)
        failures.push(`authorize ${authorized.status} ${JSON.stringify(authorized.body)} (restarting ${restarting})`);
    };
    const stream = Promise.all(
      Array.from({ length: 3 }, async () => {
        while (driving) {
          await pay();
          await sleep(100);
        }
      }),
    );

    const restarts: Array<{ name: string; exitCode: number | null; awayMs: number }> = [];
    // In rounds: the first instance of every service at once, then the second, so a service never
    // has both away (and the test stays short: each start is seconds of a busy machine's CPU).
    for (let replica = 0; replica < 2; replica += 1) {
      const round = SERVICES.map((service) => cluster!.layout.of(service)[replica]!);
      restarting = round.map((instance) => instance.name).join(', ');
      restarts.push(
        ...(await Promise.all(
          round.map(async (instance) => ({ name: instance.name, ...(await cluster!.restart(instance)) })),
        )),
      );
    }
    restarting = 'none';
    driving = false;
    await stream;
    process.stdout.write(
      `rolling restart: ${restarts.map((r) => `${r.name} ${(r.awayMs / 1000).toFixed(1)} s`).join(', ')}; ${sessions.length} payments driven, ${failures.length} failed\n`,
    );

    expect(restarts.filter((r) => r.exitCode !== 0)).toEqual([]);
    expect(failures).toEqual([]);
    expect(sessions.length).toBeGreaterThan(SERVICES.length * 2);

    // Every session completes (rail credits wait for the creditor bank's confirmation).
    const deadline = Date.now() + 60_000;
    let open = sessions;
    while (open.length > 0 && Date.now() < deadline) {
      const states = await Promise.all(
        open.map(async (id) => ({
          id,
          answer: await call('GET', `${publicUrl}/payments/sessions/${id}`, undefined, auth),
        })),
      );
      open = states.filter((s) => s.answer.body?.status !== 'COMPLETED').map((s) => s.id);
      if (open.length > 0) await sleep(500);
    }
    expect(open).toEqual([]);

    // Each payment's reference debited exactly once at the payer's bank, and money conserved.
    const debits = new Map<string, number>();
    for (const ledger of await ledgers())
      for (const line of ledger.transactions)
        if (line.credit_debit_indicator === 'DEBIT') debits.set(line.reference, (debits.get(line.reference) ?? 0) + 1);
    expect(sessions.filter((id) => debits.get(id) !== 1)).toEqual([]);
    expect(await total()).toBe(moneyBefore);
  }, 480_000);
});
