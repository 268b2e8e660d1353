import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * One headline figure of a benchmark for the summary table `npm run bench` prints at the end
 * (bench/run.ts). A script reports its figures here and keeps printing its own detailed output;
 * run alone (no BENCH_RESULTS), report() does nothing.
 */
export interface Figure {
  figure: string;
  value: number;
  /** `/s`, `ms`, `statements`, ... */
  unit: string;
  /** The target, in the same unit; absent: reported for information. */
  target?: number;
  /** How `value` must compare with `target` to meet it. */
  comparison?: '>=' | '<=' | '<';
  /** The physical limit of the same work measured in the same run (e.g. the bare INSERT), same unit. */
  limit?: number;
  /** What the limit is, e.g. `bare INSERT`. */
  limitName?: string;
  /** A line printed under the table. */
  note?: string;
  /**
   * The value is a ratio of two figures measured in the same run (our router / a peer, a share of
   * the direct call): comparable across machines, unlike a rate or a duration. Units `×` and `%` are ratios too.
   */
  ratio?: boolean;
}

export interface ReportedFigure extends Figure {
  /** The benchmark script that reported it, e.g. `payments`. */
  script: string;
}

/** The file run.ts names for a run: one JSON line per figure. */
export const RESULTS_ENV = 'BENCH_RESULTS';

export function report(figure: Figure): void {
  const file = process.env[RESULTS_ENV];
  if (!file) return;
  const script = basename(process.argv[1] ?? 'unknown', '.ts');
  appendFileSync(file, `${JSON.stringify({ script, ...figure } satisfies ReportedFigure)}\n`);
}

export function readResults(file: string): ReportedFigure[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as ReportedFigure);
}

export function isMet(figure: Figure): boolean | undefined {
  if (figure.target === undefined) return undefined;
  if (!Number.isFinite(figure.value)) return false;
  switch (figure.comparison ?? '>=') {
    case '>=':
      return figure.value >= figure.target;
    case '<=':
      return figure.value <= figure.target;
    case '<':
      return figure.value < figure.target;
  }
}

const SIGN = { '>=': '≥', '<=': '≤', '<': '<' } as const;

const amount = (value: number, unit: string): string => {
  if (!Number.isFinite(value)) return 'n/a';
  // Below 1 (a CPU time in ms, a ratio's target such as 0.25 ms) two digits, else one.
  const digits = Number.isInteger(value) || Math.abs(value) >= 100 ? 0 : Math.abs(value) < 1 ? 2 : 1;
  return `${value.toFixed(digits)}${unit.startsWith('/') || unit === '%' ? '' : ' '}${unit}`;
};

/** `ratio`: comparable across machines; `absolute`: a rate or a duration of this machine (its share of a limit is a ratio). */
export const kindOf = (figure: Figure): string =>
  figure.ratio || figure.unit === '×' || figure.unit === '%' ? 'ratio' : 'absolute';

/**
 * The summary table: figure | kind | measured | target | met | physical limit. The limit column
 * names the limit's figure and what share of it the full path reaches.
 */
export function formatTable(figures: ReportedFigure[], failed: string[]): string {
  const rows = figures.map((f) => {
    const met = isMet(f);
    return [
      `${f.script}: ${f.figure}`,
      kindOf(f),
      amount(f.value, f.unit),
      f.target === undefined ? '' : `${SIGN[f.comparison ?? '>=']} ${amount(f.target, f.unit)}`,
      met === undefined ? '' : met ? 'yes' : 'no',
      f.limit === undefined
        ? ''
        : `${amount(f.limit, f.unit)} ${f.limitName ?? ''} (${((100 * f.value) / f.limit).toFixed(0)}% of it)`.replace(
            '  ',
            ' ',
          ),
    ];
  });
  for (const script of failed) rows.push([`${script}: FAILED (figures missing or partial)`, '', '', '', 'no', '']);
  const header = ['figure', 'kind', 'measured', 'target', 'met', 'physical limit (same run)'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join(' | ')
      .trimEnd();
  const notes = figures.filter((f) => f.note).map((f) => `  ${f.script}: ${f.figure}: ${f.note}`);
  return [
    line(header),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.map(line),
    ...(notes.length ? ['', 'Notes:', ...notes] : []),
  ].join('\n');
}
