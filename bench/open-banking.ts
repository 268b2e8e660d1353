/**
 * Open Banking under load (issue 10): token issuance and AIS balance reads through the REST
 * front door at 50 concurrent clients, next to the direct bank-core call the balance read wraps,
 * in one run. The platform runs as `npm start` does (its own process, PostgreSQL), sandbox bank
 * cores in another process without injected latency.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/open-banking.ts
 *   BENCH_DURATION_MS (default 8000 per phase), BENCH_CONCURRENCY (default 50)
 *
 * Phases, each a closed loop after a warm-up:
 * - full consent flows: POST /ob/consents -> POST /ob/auth/{id}/approve (OTP verified by the
 *   bank core) -> POST /ob/token (authorization_code with the PKCE verifier);
 * - token issuance: POST /ob/token with the refresh_token grant, each client rotating its own pair;
 * - AIS balance reads: GET /ob/accounts/{id}/balances (Bearer + X-Consent-Id; the router checks the
 *   token in the vault, open-banking the consent, then the bank core is asked live);
 * - the bank core's own GET /accounts/{iban}, called directly.
 * The per-TPP and per-token limits are raised for the run (one TPP and a few tokens do all of it);
 * the limiter stays in the measured path. A fresh database is created and dropped.
 */
import { createHash, randomBytes } from 'node:crypto';
import { openTestDatabase } from '@gateway/db/testing';
import { newSecret } from '@gateway/kernel';
import {
  benchCustomer,
  registerBenchBanks,
  startBenchBanks,
  type BenchBank,
  type BenchCustomer,
} from './support/bench-banks';
import { coresUsed, cpuSeconds, formatCores } from './support/cpu';
import { benchAgent, ok } from './support/http';
import { launchPlatform } from './support/launcher';
import { printTable, runLoad, type LoadResult } from './support/load';
import { report } from './support/results';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const WARMUP_MS = 2_000;
const REDIRECT_URI = 'https://tpp.bench.example/callback';
const RAISED = JSON.stringify({ ob_token: { points: 1e9 }, read: { points: 1e9 }, write: { points: 1e9 } });

interface Grant {
  consentId: string;
  accessToken: string;
  refreshToken: string;
  accountId: string;
  customer: BenchCustomer;
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error(
      'bench/open-banking.ts measures against PostgreSQL: set DATABASE_URL (e.g. postgresql://postgres@127.0.0.1:5432/test).',
    );
    process.exit(2);
  }
  const db = await openTestDatabase();
  const sharedKey = newSecret('sik_');
  const platform = await launchPlatform({ DATABASE_URL: db.url, RATE_LIMITS: RAISED });
  const cores = await startBenchBanks(db.url, sharedKey);
  const results: LoadResult[] = [];
  const cpu: Array<{ phase: string; usage: Record<string, number> }> = [];
  try {
    const bankKeys = await registerBenchBanks(platform, cores);
    const bank = cores.banks[0] as BenchBank;
    const customers: BenchCustomer[] = [];
    for (let i = 0; i < CONCURRENCY; i += 1)
      customers.push(await benchCustomer(platform, cores, bankKeys[bank.handle]!, bank, `ais${i}`, 1_000_000 + i));
    const admin = { 'x-service-admin-key': platform.adminKey };
    const tpp = await ok(
      'POST',
      `${platform.restUrl}/ob/tpps`,
      { name: 'Bench Budgeting', mode: 'live', redirect_uris: [REDIRECT_URI] },
      admin,
    );
    const tppAuth = { authorization: `Bearer ${tpp.tpp_access_token}` };

    /** A consent from creation to its first token pair: what a TPP does once per customer. */
    const grantFor = async (customer: BenchCustomer): Promise<Grant> => {
      const verifier = randomBytes(32).toString('base64url');
      const consent = await ok(
        'POST',
        `${platform.restUrl}/ob/consents`,
        {
          bank_handle: bank.handle,
          scopes: ['accounts:read', 'balances:read'],
          redirect_uri: REDIRECT_URI,
          state: randomBytes(8).toString('hex'),
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          expiry_days: 30,
        },
        tppAuth,
      );
      const approved = await ok('POST', `${platform.restUrl}/ob/auth/${consent.consent_id}/approve`, {
        customer: { type: 'alias', value: customer.alias },
        otp: customer.otp,
      });
      const code = new URL(approved.redirect_to).searchParams.get('code')!;
      const tokens = await ok(
        'POST',
        `${platform.restUrl}/ob/token`,
        new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          consent_id: consent.consent_id,
          code_verifier: verifier,
        }),
      );
      const status = await ok('GET', `${platform.restUrl}/ob/consents/${consent.consent_id}`, undefined, tppAuth);
      return {
        consentId: consent.consent_id,
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
        accountId: status.account_ids[0],
        customer,
      };
    };

    const phase = async (name: string, work: (worker: number) => Promise<void>) => {
      await runLoad(`${name} (warm-up)`, { concurrency: CONCURRENCY, durationMs: WARMUP_MS }, work);
      const before = cpuSeconds();
      const result = await runLoad(name, { concurrency: CONCURRENCY, durationMs: DURATION_MS }, work);
      results.push(result);
      cpu.push({ phase: name, usage: coresUsed(before, cpuSeconds(), result.seconds) });
      if (result.errors > 0) console.error(`${name}: ${result.errors} failed requests`);
    };

    await phase('consent flows (create, approve, code grant)', async (worker) => {
      await grantFor(customers[worker]!);
    });

    const grants = await Promise.all(customers.map(grantFor));
    await phase('tokens issued (POST /ob/token, refresh grant)', async (worker) => {
      const grant = grants[worker]!;
      const pair = await ok(
        'POST',
        `${platform.restUrl}/ob/token`,
        new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: grant.refreshToken,
          consent_id: grant.consentId,
        }),
      );
      grant.refreshToken = pair.refresh_token;
      grant.accessToken = pair.access_token;
    });

    await phase('balance reads through REST (AIS)', async (worker) => {
      const grant = grants[worker]!;
      const answer = await ok('GET', `${platform.restUrl}/ob/accounts/${grant.accountId}/balances`, undefined, {
        authorization: `Bearer ${grant.accessToken}`,
        'x-consent-id': grant.consentId,
      });
      if (answer.balances?.[0]?.type !== 'AVAILABLE') throw new Error('no AVAILABLE balance');
    });

    await phase('bank core GET /accounts/{iban}, direct', async (worker) => {
      await ok('GET', `${bank.url}/accounts/${grants[worker]!.customer.iban}`, undefined, {
        'x-service-internal-key': cores.internalKeyOf(bank.handle),
      });
    });
  } finally {
    await cores.stop();
    await platform.stop();
    await db.close();
    await benchAgent.close();
  }

  console.log(
    `\n${CONCURRENCY} concurrent clients, ${DURATION_MS / 1000} s per phase after ${WARMUP_MS / 1000} s of warm-up, PostgreSQL, one process (npm start)`,
  );
  printTable(results);
  console.log('CPU during each phase, in cores (this machine has 2):');
  for (const { phase: name, usage } of cpu) console.log(`  ${name.padEnd(44)} ${formatCores(usage)}`);
  const reads = results.find((r) => r.name.startsWith('balance reads'));
  const direct = results.find((r) => r.name.startsWith('bank core'));
  if (reads && direct)
    console.log(
      `\nBalance reads through REST keep ${((100 * reads.perSecond) / direct.perSecond).toFixed(0)}% of the direct bank-core throughput.`,
    );
  const perSecond = (prefix: string) => results.find((r) => r.name.startsWith(prefix))?.perSecond;
  const flows = perSecond('consent flows');
  const tokens = perSecond('tokens issued');
  if (flows !== undefined)
    report({ figure: 'consent flows/s (create, approve, code grant)', value: flows, unit: '/s' });
  if (tokens !== undefined) report({ figure: 'tokens issued/s (refresh grant)', value: tokens, unit: '/s' });
  // The read wraps the bank core's own call: that call is its physical limit.
  if (reads && direct)
    report({
      figure: 'AIS balance reads/s through REST',
      value: reads.perSecond,
      unit: '/s',
      limit: direct.perSecond,
      limitName: 'bank core direct',
    });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
