/**
 * Sandbox bank cores in a process of their own (bank cores are other systems: they must not share
 * the load generator's or the gateway's event loop, and their ledgers live through every platform
 * kill). Two modes:
 *
 * Benchmarks and the chaos run: no injected latency, rail credits confirmed at once.
 *   DATABASE_URL=… BANKS=handle:code,handle:code INTERNAL_KEY=… node -r ./scripts/register.js bench/support/sandbox-banks.ts
 * Each bank's internal key is `${INTERNAL_KEY}_${handle}` (the gateway stores internal keys by hash: no two
 * banks may share one). Prints one JSON line {banks: [{handle, institutionCode, url}]} once listening.
 *
 * The demo (`npm run start:cluster`): the demo's banks, customers, merchant and TPP seeded through
 * the deployment's public REST API exactly as `npm start` seeds them (platform's startDemo), the
 * progress kept in DATA_DIR/demo.json so a restart reuses it.
 *   DATABASE_URL=… DEMO_REST_URL=http://127.0.0.1:8080 ADMIN_KEY=… DATA_DIR=… [SANDBOX_PORT_BASE=7101] node -r ./scripts/register.js bench/support/sandbox-banks.ts
 * Prints one JSON line {banks, demo, demoFile} once seeded. Both modes stop on SIGINT or SIGTERM.
 */
import { join } from 'node:path';
import { openDatabase, type Database } from '@gateway/db';
import { createLogger } from '@gateway/kernel';
import { startSandboxBank, type SandboxBank } from '@gateway/bank-sandbox';
import { startDemo } from '@gateway/platform';

async function benchBanks(db: Database): Promise<{ banks: SandboxBank[]; stop(): Promise<void> }> {
  const internalKey = process.env.INTERNAL_KEY;
  if (!internalKey) throw new Error('INTERNAL_KEY is required (or DEMO_REST_URL for the demo)');
  const banks: SandboxBank[] = [];
  for (const entry of (process.env.BANKS ?? '').split(',').filter(Boolean)) {
    const [handle, institutionCode] = entry.split(':') as [string, string];
    banks.push(
      await startSandboxBank({
        handle,
        institutionCode,
        internalKey: `${internalKey}_${handle}`,
        db,
        confirmDelayMs: { min: 0, max: 0 },
        logger: createLogger(`bench-bank:${handle}`, 'error'),
      }),
    );
  }
  process.stdout.write(
    `${JSON.stringify({ banks: banks.map((bank) => ({ handle: bank.handle, institutionCode: bank.institutionCode, url: bank.url })) })}\n`,
  );
  return {
    banks,
    async stop() {
      for (const bank of banks) await bank.stop();
    },
  };
}

async function demoBanks(db: Database, restUrl: string): Promise<{ stop(): Promise<void> }> {
  const adminKey = process.env.ADMIN_KEY;
  const dataDir = process.env.DATA_DIR;
  if (!adminKey || !dataDir) throw new Error('ADMIN_KEY and DATA_DIR are required with DEMO_REST_URL');
  const portBase = Number(process.env.SANDBOX_PORT_BASE ?? 7101);
  const demo = await startDemo(
    { restUrl, adminKey, db, config: { dataDir, host: process.env.HOST ?? '127.0.0.1' } },
    { portBase, logger: createLogger('demo', process.env.LOG_LEVEL ?? 'warn') },
  );
  const banks = demo.banks.map((bank) => ({
    handle: bank.handle,
    institutionCode: bank.institutionCode,
    url: bank.url,
  }));
  process.stdout.write(`${JSON.stringify({ banks, demo: demo.file, demoFile: join(dataDir, 'demo.json') })}\n`);
  return demo;
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  const db = await openDatabase({ url, poolSize: 20 });
  const running = process.env.DEMO_REST_URL ? await demoBanks(db, process.env.DEMO_REST_URL) : await benchBanks(db);
  const stop = async () => {
    await running.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
