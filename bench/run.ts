/**
 * `npm run bench`: every benchmark in this folder, one after another (each in its own process,
 * so one's servers and memory never weigh on the next), or the ones named:
 *
 *   npm run bench                       all of them, in alphabetical order
 *   npm run bench -- payments events    those two
 *   npm run bench -- --list             their names
 *
 * The environment passes through (DATABASE_URL, AMQP_URL, BENCH_*: see each script's header).
 * Exits non-zero when a benchmark failed, after running the others.
 *
 * How to read the summary table printed at the end (also when a benchmark failed): each script
 * prints its detailed output as it runs and reports its headline figures to a file this runner
 * names (BENCH_RESULTS, bench/support/results.ts); the table gathers them, one row per figure:
 *
 *   figure          `<script>: <what>`, with the layout (one process, split, cluster replicas)
 *   kind            ratio (two figures of the same run divided: our router against a peer, a share
 *                   of a limit; comparable across machines) or absolute (this machine's rate, latency, CPU)
 *   measured        the figure in this run (throughput /s, latency p99 ms, statements per payment)
 *   target          the target the script states (issue 15's: 2 cores, PostgreSQL, 50 clients, one
 *                   process unless the row says otherwise; older ones such as a p99 bound too); empty: none
 *   met             yes / no against the target; a script that failed has a row `FAILED`, met no
 *   physical limit  the same work with nothing of the platform around it, measured in the same run
 *                   on the same machine (a bare INSERT of a session row at the same concurrency and
 *                   pool size; the identity subgraph called directly), and the share of it the full
 *                   path reaches. Empty where no such limit applies.
 *
 * The header names the machine's core count: the targets are for 2 cores, and on a busy shared
 * machine the limit column is the fairer yardstick (both sides of it see the same load).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTable, readResults, RESULTS_ENV } from './support/results';

const BENCH_DIR = __dirname;
const ROOT = join(BENCH_DIR, '..');
const available = readdirSync(BENCH_DIR)
  .filter((name) => name.endsWith('.ts') && name !== 'run.ts')
  .map((name) => name.slice(0, -'.ts'.length))
  .sort();

const args = process.argv.slice(2);
if (args.includes('--list')) {
  console.log(available.join('\n'));
  process.exit(0);
}
const unknown = args.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`No benchmark named ${unknown.join(', ')}. Available: ${available.join(', ')}.`);
  process.exit(2);
}

const resultsDir = mkdtempSync(join(tmpdir(), 'gw-bench-results-'));
const resultsFile = join(resultsDir, 'results.jsonl');
const failed: string[] = [];
for (const name of args.length > 0 ? args : available) {
  console.log(`\n=== bench/${name}.ts`);
  const run = spawnSync(process.execPath, ['-r', './scripts/register.js', join('bench', `${name}.ts`)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, [RESULTS_ENV]: resultsFile },
  });
  if (run.status !== 0) failed.push(`${name} (${run.signal ?? `exit ${run.status}`})`);
}

const figures = readResults(resultsFile);
rmSync(resultsDir, { recursive: true, force: true });
console.log(
  `\n=== summary: ${availableParallelism()} cores available to Node (targets are for 2), ${process.env.DATABASE_URL ? 'PostgreSQL' : 'no DATABASE_URL'}, ${new Date().toISOString()}`,
);
console.log(formatTable(figures, failed));
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}
