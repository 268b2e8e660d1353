/**
 * Sandbox bank cores for benchmarks, in a process of their own (bank cores are other systems:
 * they must not share the load generator's or the gateway's event loop). No injected latency:
 * answers as fast as the ledger books, and rail credits are confirmed at once.
 *   DATABASE_URL=… BANKS=handle:code,handle:code INTERNAL_KEY=… node -r ./scripts/register.js bench/support/sandbox-banks.ts
 * Each bank's internal key is `${INTERNAL_KEY}_${handle}` (the gateway stores internal keys by hash: no two
 * banks may share one). Prints one JSON line {banks: [{handle, institutionCode, url}]} once listening; stops on SIGINT.
 */
import { openDatabase } from '@gateway/db';
import { createLogger } from '@gateway/kernel';
import { startSandboxBank, type SandboxBank } from '@gateway/bank-sandbox';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const internalKey = process.env.INTERNAL_KEY;
  if (!url || !internalKey) throw new Error('DATABASE_URL and INTERNAL_KEY are required');
  const db = await openDatabase({ url, poolSize: 20 });
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
  process.stdout.write(`${JSON.stringify({ banks: banks.map((bank) => ({ handle: bank.handle, institutionCode: bank.institutionCode, url: bank.url })) })}\n`);
  process.once('SIGINT', async () => {
    for (const bank of banks) await bank.stop();
    await db.close();
    process.exit(0);
  });
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
