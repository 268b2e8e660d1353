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
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

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

const failed: string[] = [];
for (const name of args.length > 0 ? args : available) {
  console.log(`\n=== bench/${name}.ts`);
  const run = spawnSync(process.execPath, ['-r', './scripts/register.js', join('bench', `${name}.ts`)], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) failed.push(`${name} (${run.signal ?? `exit ${run.status}`})`);
}
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}
