import type { Server } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '@gateway/db';
import type { Scratch } from '../launcher/scratch';
import { SandboxCores } from '../chaos/cores';
import type { Deployment } from '../chaos/deployment';
import { Driver, mandatesRouted } from '../chaos/driver';
import { checkInvariants, debitedTwice } from '../chaos/invariants';
import { PositionSampler } from '../chaos/net-debit';
import { onboard } from '../chaos/onboarding';
import { waitForQuiet } from '../chaos/quiet';
import { startReceiver } from '../chaos/receiver';
import { refundsRouted } from '../chaos/refunds';
import { SubscriptionSample } from '../chaos/subscription-sample';
import { probeEnv, startSoakDeployment } from './deployment';
import { Latencies, TimedClient } from './latency';
import { measureCapacity, OpenLoop } from './load';
import { log } from './log';
import { forcedGcSeconds, readProbes } from './probes';
import { Chores } from './chores';
import { Reads } from './reads';
import { checkFigure, evaluateAll, failures, figuresTable, seriesTable, writeReport, type Figure } from './report';
import { renderPngs } from './png';
import { Sampler } from './sampler';
import { buildSeries } from './series';
import { SETTINGS } from './settings';

/** Workers of the closed loop that measures the capacity. */
const CAPACITY_CONCURRENCY = 8;
/** How often the run checks for what cannot recover: a platform process gone. */
const GUARD_SECONDS = 30;
/**
 * How often the guard also reads the cores' ledgers for a double debit: three reads of 500 lines
 * kept the banks' process busy for 100-400 ms, and every payment calling a core in that time waited
 * (issue 52: every 30 s they set part of authorize's and a mandate's p99).
 */
const LEDGER_GUARD_SECONDS = 300;

export interface RunContext {
  scratch: Scratch;
  db: Database;
  /** The run's folder: the probe's lines, the report and its charts. */
  dir: string;
}

/** One soak: start, onboard, measure, load while sampling, judge, wait for quiet, check, report. Answers whether everything held. */
export async function runSoak(
  { scratch, db, dir }: RunContext,
  started: { deployment?: Deployment; cores?: SandboxCores; receiver?: Server },
): Promise<boolean> {
  const latencies = new Latencies();
  const client = new TimedClient(latencies);
  const receiver = await startReceiver();
  started.receiver = receiver.server;
  // The banks get the probe's orphan watch only (no samples: they are the run's bank cores, not the platform).
  const cores = await SandboxCores.start(scratch.databaseUrl, client, probeEnv());
  started.cores = cores;
  const deployment = await startSoakDeployment(SETTINGS.layout, {
    databaseUrl: scratch.databaseUrl,
    amqpUrl: scratch.amqpUrl,
    env: {
      ...probeEnv(join(dir, 'probe')),
      SOAK_PROBE_INTERVAL_MS: String(SETTINGS.sampleSeconds * 1000),
      SOAK_PROBE_GC_INTERVAL_MS: String(forcedGcSeconds(SETTINGS.minutes, SETTINGS.sampleSeconds) * 1000),
    },
    onPlanned: (d) => (started.deployment = d),
  });
  const rest = deployment.restUrl;
  client.publicUrl = rest;
  log(`platform up: ${deployment.instances.map((s) => `${s.name} pid ${s.child?.pid}`).join(', ')}`);

  const parties = await onboard(client, cores, rest, deployment.adminKey, receiver.url);
  const subscriptions = new SubscriptionSample(`${rest}/graphql`, parties.merchant.key);
  const positions = new PositionSampler(db.knex);
  const moneyBefore = await cores.totalBalance();
  const withMandates = await mandatesRouted(client, rest);
  const withRefunds = await refundsRouted(client, rest);
  log(
    `mandate charges ${withMandates ? 'included' : 'not routed'}, refunds ${withRefunds ? 'included' : 'not routed'}`,
  );
  const driver = new Driver(client, rest, parties, subscriptions, withMandates, withRefunds);
  const reads = new Reads(client, rest, parties, subscriptions);
  const chores = new Chores(client, rest, parties, parties.customers.slice(-3));
  positions.start();

  const capacity = await measureCapacity(() => driver.one(), SETTINGS.capacitySeconds, CAPACITY_CONCURRENCY);
  const rate = Math.max(0.2, capacity.perSecond * SETTINGS.fraction);
  log(
    `capacity ${capacity.perSecond.toFixed(1)} payments/s (${capacity.done} in ${SETTINGS.capacitySeconds} s, ${CAPACITY_CONCURRENCY} at once); load ${rate.toFixed(2)}/s open loop, ${SETTINGS.readShare} reads per payment`,
  );

  const load = new OpenLoop(rate, async () => {
    const readsNow = Math.floor(SETTINGS.readShare) + (Math.random() < SETTINGS.readShare % 1 ? 1 : 0);
    await Promise.all([driver.one(), ...Array.from({ length: readsNow }, () => reads.one())]);
  });
  const sampler = new Sampler({
    knex: db.knex,
    vhost: scratch.ownVhost ? scratch.name : undefined,
    subscriptions,
    load,
    latencies,
    every: SETTINGS.sampleSeconds,
  });
  const duration = SETTINGS.minutes * 60;
  const warmup = SETTINGS.warmupMinutes * 60_000;
  const loadBegan = Date.now();
  const begin = loadBegan + warmup;
  const arrivals = load.run(loadBegan, begin + duration * 1000);
  if (warmup > 0) {
    log(`warm-up: ${SETTINGS.warmupMinutes} min of the same load, not judged`);
    await sleep(warmup);
  }
  latencies.begin();
  sampler.start(begin);
  chores.start();
  let unrecoverable: string | undefined;
  const guard = (async () => {
    for (let tick = 1; !unrecoverable && Date.now() < begin + duration * 1000; tick += 1) {
      await sleep(Math.min(GUARD_SECONDS * 1000, Math.max(0, begin + duration * 1000 - Date.now())));
      const readLedgers = tick % (LEDGER_GUARD_SECONDS / GUARD_SECONDS) === 0;
      unrecoverable = await cannotRecover(deployment, readLedgers ? cores : undefined);
      if (unrecoverable) load.stop();
      else
        log(
          `load: ${load.started} arrivals, ${load.inFlight} in flight, ${load.shed} shed; driven ${JSON.stringify(driver.driven)}`,
        );
    }
  })();
  await arrivals;
  await guard;
  await chores.stop();
  await sampler.stop();
  latencies.end();
  const loadEnded = Date.now();
  if (unrecoverable) log(`stopped at once: ${unrecoverable}`);
  await load.drained();
  await driver.refunds?.settled();
  log(
    `load done: ${JSON.stringify(driver.driven)}; refused or unanswered: ${JSON.stringify(driver.refused)}; reads ${JSON.stringify(reads.answers)}; chores ${JSON.stringify(chores.answers)}`,
  );

  const series = buildSeries({
    probes: readProbes(join(dir, 'probe')),
    sampled: sampler.points,
    windows: latencies.windows,
    begin,
    duration: (loadEnded - begin) / 1000,
  });
  const evaluated = evaluateAll(series, (loadEnded - begin) / 1000);
  const expected = SETTINGS.layout === 'split' ? deployment.instances.length : 1;
  const probed = series.filter((s) => s.name.startsWith('heap after GC: ') && s.points.length > 0).length;
  const figures: Figure[] = [
    {
      figure: 'capacity (closed loop, 8 at once)',
      value: `${capacity.perSecond.toFixed(1)} payments/s`,
      target: '',
      verdict: '',
    },
    {
      figure: 'load (open loop)',
      value: `${rate.toFixed(2)} payments/s for ${((loadEnded - begin) / 60_000).toFixed(1)} min: ${load.started} arrivals, ${JSON.stringify(driver.driven)}`,
      target: '',
      verdict: '',
    },
    verdictFigure('arrivals shed (400 in flight)', String(load.shed), '0', load.shed === 0),
    verdictFigure('arrivals that threw', String(load.failed), '0', load.failed === 0),
    choresFigure(chores.answers),
    verdictFigure('processes sampled by the probe', `${probed} of ${expected}`, 'all', probed === expected),
    verdictFigure('unrecoverable during the load', unrecoverable ?? 'none', 'none', !unrecoverable),
  ];

  if (!unrecoverable) {
    const openWork = await waitForQuiet(db.knex, withMandates, withRefunds);
    await positions.stop();
    await subscriptions.stop(15_000);
    const findings = await checkInvariants(db.knex, {
      driver,
      cores,
      receiver,
      subscriptions,
      moneyBefore,
      openWork,
      netDebit: { cap: parties.netDebitCap, sampler: positions },
    });
    figures.push(...findings.checks.map(checkFigure));
  } else {
    await positions.stop();
    await subscriptions.stop(0);
  }
  process.stdout.write(`\n${figuresTable(figures)}\n\n${seriesTable(evaluated)}\n\n`);
  const failed = failures(evaluated);
  for (const line of failed) log(line);
  const charts = writeReport(dir, {
    title: `Soak ${scratch.name}: ${SETTINGS.layout}, ${SETTINGS.minutes} min`,
    notes: [
      `capacity ${capacity.perSecond.toFixed(1)} payments/s; load ${rate.toFixed(2)}/s (${SETTINGS.fraction * 100}%), open loop, ${SETTINGS.readShare} reads per payment`,
      `sampled every ${SETTINGS.sampleSeconds} s; verdicts over the load phase (${((loadEnded - begin) / 60_000).toFixed(1)} min${SETTINGS.warmupMinutes ? `, after ${SETTINGS.warmupMinutes} min of warm-up at the same load` : ''})`,
    ],
    figures,
    evaluated,
    duration: (loadEnded - begin) / 1000,
  });
  const pngProblem = await renderPngs(charts);
  if (pngProblem) log(pngProblem);
  return failed.length === 0 && figures.every((f) => f.verdict !== 'FAIL');
}

/** The chores (consents, refreshes, dashboard sessions, reports): every one answered as it should be. */
function choresFigure(answers: Record<string, number>): Figure {
  const done = Object.values(answers).reduce((sum, n) => sum + n, 0);
  const wrong = Object.entries(answers).filter(([what]) => !/ 20[014]$/.test(what));
  return verdictFigure(
    'chores answered 2xx (consent made and revoked, token refreshed and used, dashboard session, CSV report)',
    `${done} calls${wrong.length ? `; not 2xx: ${wrong.map(([what, n]) => `${what} x${n}`).join(', ')}` : ''}`,
    'all 2xx',
    wrong.length === 0 && done > 0,
  );
}

const verdictFigure = (figure: string, value: string, target: string, ok: boolean): Figure => ({
  figure,
  value,
  target,
  verdict: ok ? 'PASS' : 'FAIL',
});

/**
 * What no waiting mends, checked while the load runs: a platform process gone (nothing here
 * kills one) or a core reference debited twice. Money conserved can only be judged at quiet
 * (a payment holds money between its debit and its credit), so it is checked there.
 */
async function cannotRecover(deployment: Deployment, cores?: SandboxCores): Promise<string | undefined> {
  const gone = deployment.instances.filter((s) => !s.running);
  if (gone.length)
    return `platform process gone: ${gone.map((s) => `${s.name}\n${s.lastOutput().slice(-2000)}`).join(', ')}`;
  if (!cores) return undefined;
  const debits = await debitedTwice(cores);
  if (debits.twice) return `double debit: ${debits.check.figure}`;
  return undefined;
}
