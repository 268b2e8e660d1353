/**
 * `npm run soak -- --minutes N [--layout one-process|split] [--fraction 0.4]`: the platform on
 * PostgreSQL and RabbitMQ under a steady, open-loop load at a fraction of the capacity measured
 * at the start, sampled every 10 s (its processes by a probe, the database, the queues and the
 * latencies by the run), judged by computed verdicts, then quiet and the chaos run's invariants
 * (docs/soak.md). No faults. Exits 1 when a verdict or an invariant fails.
 *
 * It reuses the chaos run's pieces (scripts/chaos): scratch database and vhost, deployment, cores,
 * onboarding, receiver (5 % of deliveries answered 500), driver, quiet wait and invariants.
 */
import { SETTINGS } from './settings';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { openDatabase, type Database } from '@gateway/db';
import { createScratch, type Scratch } from '../launcher/scratch';
import type { SandboxCores } from '../chaos/cores';
import type { Deployment } from '../chaos/deployment';
import { log } from './log';
import { runSoak } from './run';

interface Started {
  deployment?: Deployment;
  cores?: SandboxCores;
  receiver?: Server;
}

async function main(): Promise<void> {
  const baseDatabaseUrl = process.env.DATABASE_URL;
  const baseAmqpUrl = process.env.AMQP_URL;
  if (!baseDatabaseUrl || !baseAmqpUrl)
    throw new Error('npm run soak needs DATABASE_URL (PostgreSQL) and AMQP_URL (RabbitMQ)');
  const scratch: Scratch = await createScratch('soak', baseDatabaseUrl, baseAmqpUrl);
  const dir = SETTINGS.out ?? mkdtempSync(join(tmpdir(), `${scratch.name}-`));
  mkdirSync(join(dir, 'probe'), { recursive: true });
  log(
    `run ${scratch.name}, ${SETTINGS.layout}: ${SETTINGS.minutes} min at ${SETTINGS.fraction * 100}% of the measured capacity; report in ${dir}`,
  );
  const db: Database = await openDatabase({ url: scratch.databaseUrl, poolSize: 4 });
  const started: Started = {};
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await started.deployment?.stop().catch(() => undefined);
      await started.cores?.banksProcess.stop().catch(() => undefined);
      started.receiver?.close();
      await db.close().catch(() => undefined);
      await scratch.drop().catch((error) => log(`could not drop ${scratch.name}: ${error}`));
    })());
  // Stopped from outside (Ctrl-C, a CI timeout's SIGTERM): everything the run started stops with it.
  // A SIGKILL runs nothing here: then each process's probe sees its parent gone and stops itself.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      log(`${signal}: stopping what the run started`);
      void cleanup().then(() => process.exit(130));
    });

  let passed = false;
  try {
    passed = await runSoak({ scratch, db, dir }, started);
  } catch (error) {
    log(`run aborted: ${error instanceof Error ? error.stack : String(error)}`);
  } finally {
    await cleanup();
  }
  log(`${passed ? 'PASSED' : 'FAILED'} (report: ${join(dir, 'report.md')})`);
  process.exit(passed ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
