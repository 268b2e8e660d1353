/**
 * `npm run chaos`: drives payments through the public REST API of a platform split into OS
 * processes (PostgreSQL + RabbitMQ) while it SIGKILLs and restarts services, makes the sandbox
 * cores fail, hang or answer late, and cuts the RabbitMQ connection; then waits for quiet and
 * checks the invariants (docs/chaos.md). Exits 1 when an invariant fails.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test AMQP_URL=amqp://guest:guest@127.0.0.1:5672 npm run chaos
 *
 * CHAOS_PAYMENTS (1000), CHAOS_SECONDS (300: payments are paced over this many seconds; the driving phase ends at whichever comes first),
 * CHAOS_QUIET_SECONDS (240), CHAOS_CONCURRENCY (12), CHAOS_SEED, CHAOS_KEEP_DATABASE=1,
 * CHAOS_KILL_KINDS (services to kill, e.g. `payments`), CHAOS_SIGNALS (`KILL`, `TERM` or both),
 * CHAOS_KILL_PICK (`random` or `longest-up`).
 *
 * This file runs the phases in order; each lives beside it: settings.ts (the variables above),
 * deployment.ts and cores.ts (what is started), onboarding.ts (banks, customers, merchant, TPP),
 * driver.ts (the payments) and refunds.ts (a share of them refunded), faults.ts (kills, core faults, RabbitMQ cuts), quiet.ts (the wait for
 * nothing in flight), invariants.ts, refund-invariants.ts and net-debit.ts (the checks; net-debit.ts also sets the cap and samples the positions) and report.ts (the figures and the evidence table).
 */
import type { Server } from 'node:http';
import { openDatabase, type Database } from '@gateway/db';
import { createScratch } from '../launcher/scratch';
import { Client } from './client';
import { SandboxCores } from './cores';
import { CuttableProxy } from './cuttable-proxy';
import { startDeployment, type Deployment } from './deployment';
import { Driver, mandatesRouted } from './driver';
import { Faults } from './faults';
import { checkInvariants } from './invariants';
import { log } from './log';
import { PositionSampler } from './net-debit';
import { onboard } from './onboarding';
import { waitForQuiet } from './quiet';
import { SEED } from './random';
import { startReceiver } from './receiver';
import { refundsRouted } from './refunds';
import { printReport } from './report';
import { CONCURRENCY, KILL_KINDS, KILL_PICK, PAYMENTS, REPLICAS, SECONDS, SIGNALS } from './settings';
import { SubscriptionSample } from './subscription-sample';
import { TakeoverWatch } from './takeover';

/** What a run has started so far: stopped at the end, or on Ctrl-C, whatever point the run reached. */
interface Started {
  deployment?: Deployment;
  cores?: SandboxCores;
  receiver?: Server;
}

async function main(): Promise<void> {
  const baseDatabaseUrl = process.env.DATABASE_URL;
  const baseAmqpUrl = process.env.AMQP_URL;
  if (!baseDatabaseUrl || !baseAmqpUrl)
    throw new Error('npm run chaos needs DATABASE_URL (PostgreSQL) and AMQP_URL (RabbitMQ)');
  // A database and a RabbitMQ vhost of the run's own (dropped at the end), so no other test's rows or queues are touched.
  const scratch = await createScratch('chaos', baseDatabaseUrl, baseAmqpUrl);
  log(
    `seed ${SEED}, run ${scratch.name}: up to ${PAYMENTS} payments in ${SECONDS} s, concurrency ${CONCURRENCY}; kills of ${[...new Set(KILL_KINDS)].join(', ')} by ${SIGNALS.join('/')}, instance ${KILL_PICK}`,
  );
  const databaseUrl = scratch.databaseUrl;

  // RabbitMQ reached through a proxy the run can cut.
  const amqp = new URL(scratch.amqpUrl);
  const proxy = new CuttableProxy(amqp.hostname, Number(amqp.port || 5672));
  await proxy.start();
  amqp.hostname = '127.0.0.1';
  amqp.port = String(proxy.port);
  const amqpUrl = amqp.toString();

  const db = await openDatabase({ url: databaseUrl, poolSize: 4 });
  const started: Started = {};
  let failed: boolean;
  const cleanup = async () => {
    await started.deployment?.stop().catch(() => undefined);
    await started.cores?.banksProcess.stop();
    started.receiver?.close();
    await proxy.stop();
    await db.close();
    const keepDatabase = process.env.CHAOS_KEEP_DATABASE === '1';
    if (keepDatabase) log(`kept database ${scratch.name}`);
    await scratch.drop({ keepDatabase }).catch((error) => log(`could not drop ${scratch.name}: ${error}`));
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

  try {
    failed = !(await run({ databaseUrl, amqpUrl, db, proxy }, started));
  } catch (error) {
    log(`run aborted: ${error instanceof Error ? error.stack : String(error)}`);
    failed = true;
  } finally {
    await cleanup();
  }
  log(failed ? 'FAILED' : 'PASSED');
  process.exit(failed ? 1 : 0);
}

interface RunContext {
  databaseUrl: string;
  amqpUrl: string;
  db: Database;
  proxy: CuttableProxy;
}

/** One run: start, onboard, drive under chaos, wait for quiet, check. Answers whether every invariant held. */
async function run({ databaseUrl, amqpUrl, db, proxy }: RunContext, started: Started): Promise<boolean> {
  const client = new Client();
  const receiver = await startReceiver();
  started.receiver = receiver.server;
  const cores = await SandboxCores.start(databaseUrl, client);
  started.cores = cores;
  const deployment = await startDeployment({
    replicas: REPLICAS,
    databaseUrl,
    amqpUrl,
    onPlanned: (d) => (started.deployment = d),
  });
  const rest = deployment.restUrl;
  client.publicUrl = rest;
  log(
    `platform up${REPLICAS > 1 ? ` behind HAProxy at ${rest}` : ''}: ${deployment.instances.map((s) => `${s.name} pid ${s.child?.pid}`).join(', ')}; banks pid ${cores.banksProcess.child.pid}`,
  );

  const parties = await onboard(client, cores, rest, deployment.adminKey, receiver.url);
  // A sample of the sessions watched over graphql-ws as the merchant (statuses once each, in order).
  const subscriptions = new SubscriptionSample(`${rest}/graphql`, parties.merchant.key);
  const takeover = new TakeoverWatch(db.knex);
  // Invariant A: the net debit positions read every few seconds from now until quiet.
  const positions = new PositionSampler(db.knex);
  const moneyBefore = await cores.totalBalance();
  const withMandates = await mandatesRouted(client, rest);
  log(
    withMandates
      ? 'mandate charges: /recurring/mandates is in the route table, included'
      : 'mandate charges: /recurring/mandates not in the route table, skipped',
  );

  const withRefunds = await refundsRouted(client, rest);
  log(
    withRefunds
      ? 'refunds: /payments/sessions/{session_id}/refunds is in the route table, included'
      : 'refunds: /payments/sessions/{session_id}/refunds not in the route table, skipped',
  );

  const driver = new Driver(client, rest, parties, subscriptions, withMandates, withRefunds);
  const faults = new Faults(deployment, cores, proxy, takeover);
  const progress = setInterval(
    () =>
      log(
        `driven ${JSON.stringify(driver.driven)}${driver.refunds ? `, refunds ${JSON.stringify(driver.refunds.driven)}` : ''}`,
      ),
    15_000,
  );
  positions.start();
  faults.start();
  await driver.drive();
  await faults.stop();
  clearInterval(progress);
  for (const bank of cores.banks) await cores.clearFaults(bank);
  proxy.restore();
  for (const s of deployment.instances) if (!s.running) await s.start();
  log(`driving done: ${JSON.stringify(driver.driven)}; refused or unanswered: ${JSON.stringify(driver.refused)}`);
  log(`chaos: ${JSON.stringify(faults.counts)}`);

  const openWork = await waitForQuiet(db.knex, withMandates, withRefunds);
  await positions.stop();
  // Watchers see their sessions' last statuses; every payment held at a kill has moved (or is given up on).
  await subscriptions.stop(15_000);
  await takeover.settled();

  const findings = await checkInvariants(db.knex, {
    driver,
    cores,
    receiver,
    subscriptions,
    moneyBefore,
    openWork,
    netDebit: { cap: parties.netDebitCap, sampler: positions },
  });
  printReport({
    driver,
    client,
    faults: faults.counts,
    takeover,
    webhooks: receiver.order,
    subscriptions,
    moneyBefore,
    findings,
  });
  return findings.checks.every((r) => r.ok);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
