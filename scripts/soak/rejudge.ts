/**
 * `npm run soak:rejudge -- <run folder>`: a finished soak judged again by today's verdicts
 * (verdicts.ts, series.ts), from what it wrote: its probe lines (the per-process series, rebuilt as
 * buildSeries builds them) and series.json (the run's own samples and latency windows). Writes
 * `<run>/rejudged/` (report.md with the series table, charts) and prints the table; exits 1 when
 * a verdict fails. For a run made before a verdict changed, or to compare two runs by one rule.
 * The run's figures and invariants are its own report's: they are not judged again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderPngs } from './png';
import { compiledCode, readProbes, type ProbeLine } from './probes';
import { evaluateAll, failures, seriesTable, writeReport } from './report';
import { buildSeries } from './series';
import type { Point, Series, Window } from './verdicts';

type Stored = Series & { windows?: Window[] };

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npm run soak:rejudge -- <run folder>');
  const stored: Stored[] = JSON.parse(readFileSync(join(dir, 'series.json'), 'utf8'));
  const probes = readProbes(join(dir, 'probe'));
  const duration = Math.max(...stored.flatMap((s) => s.points.map((p) => p.t)));
  const begin = loadBegan(stored, probes);
  const sampled = new Map<string, Point[]>();
  const windows = new Map<string, Window[]>();
  for (const s of stored) {
    if (s.name.startsWith('p99: ')) windows.set(s.name.slice('p99: '.length), s.windows ?? []);
    else if (!s.name.startsWith('p50: ')) sampled.set(s.name, s.points);
  }
  const series = buildSeries({ probes, sampled, windows, begin, duration });
  const evaluated = evaluateAll(series, duration);
  process.stdout.write(`\n${seriesTable(evaluated)}\n\n`);
  const failed = failures(evaluated);
  for (const line of failed) process.stdout.write(`${line}\n`);
  const charts = writeReport(join(dir, 'rejudged'), {
    title: `${dir}, judged again`,
    notes: [`the run's figures and invariants: ${join(dir, 'report.md')}`],
    figures: [],
    evaluated,
    duration,
  });
  const pngProblem = await renderPngs(charts);
  if (pngProblem) process.stdout.write(`${pngProblem}\n`);
  process.exit(failed.length ? 1 : 0);
}

/**
 * When the load began (epoch ms): the run stored its heap points as (line time - begin) / 1000 of
 * the probe's lines, so a stored heap point and the line of the same value tell it (the heap as
 * runs before 30 November 2026 judged it, or without compiled code as they do since).
 */
function loadBegan(stored: readonly Stored[], probes: ReturnType<typeof readProbes>): number {
  for (const s of stored) {
    const service = s.name.startsWith('heap after GC: ') ? s.name.slice('heap after GC: '.length) : undefined;
    const lines = service ? probes.get(service) : undefined;
    const point = s.points[0];
    if (!lines || !point) continue;
    const judged = [(l: ProbeLine) => l.heapUsed / 1e6, (l: ProbeLine) => (l.heapUsed - compiledCode(l)) / 1e6];
    const line = lines.find((l) => judged.some((value) => Math.abs(value(l) - point.v) < 1e-9));
    if (line) return line.t - point.t * 1000;
  }
  throw new Error('the run stored no heap point its probe lines explain');
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
