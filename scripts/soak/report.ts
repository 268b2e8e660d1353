import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../chaos/invariants';
import { CHART, svgChart } from './chart';
import { evaluate, format, type Series, type Verdict } from './verdicts';

export interface Evaluated {
  series: Series;
  verdict: Verdict;
}

/** A line of the run's table: a figure of the run or an invariant, with its target and verdict. */
export interface Figure {
  figure: string;
  value: string;
  target: string;
  verdict: string;
}

export const evaluateAll = (series: readonly Series[], duration: number): Evaluated[] =>
  series.map((s) => ({ series: s, verdict: evaluate(s, duration) }));

const verdictText = ({ series, verdict }: Evaluated) =>
  verdict.ok === undefined ? (series.rule.kind === 'info' ? '' : 'n/a') : verdict.ok ? 'PASS' : 'FAIL';

/** A markdown table, its columns padded so it reads in a terminal too (pipes in cells escaped). */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => cell(r[i] ?? '').length)));
  const line = (r: readonly string[]) => `| ${widths.map((w, i) => cell(r[i] ?? '').padEnd(w)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Every series: first and last value, slope per 10 minutes (least squares, last three quarters), bound, verdict. */
export function seriesTable(evaluated: readonly Evaluated[]): string {
  return markdownTable(
    ['series', 'first', 'last', 'slope /10 min', 'bound', 'verdict'],
    evaluated.map((e) => {
      const unit = e.series.unit ? ` ${e.series.unit}` : '';
      const value = (v: number | undefined) => (v === undefined ? '' : `${format(v)}${unit}`);
      return [
        e.series.name,
        value(e.verdict.first),
        value(e.verdict.last),
        format(e.verdict.slopePer10Min),
        e.verdict.bound,
        verdictText(e),
      ];
    }),
  );
}

export const checkFigure = (check: Check): Figure => ({
  figure: check.name,
  value: check.figure,
  target: '',
  verdict: check.ok ? 'PASS' : 'FAIL',
});

export const figuresTable = (figures: readonly Figure[]): string =>
  markdownTable(
    ['figure', 'value', 'target', 'verdict'],
    figures.map((f) => [f.figure, f.value, f.target, f.verdict]),
  );

/** What failed, one line each: the series and what it measured (its slope, max or p99s). */
export const failures = (evaluated: readonly Evaluated[]): string[] =>
  evaluated
    .filter((e) => e.verdict.ok === false)
    .map((e) => `FAIL ${e.series.name}: ${e.verdict.detail} (bound: ${e.verdict.bound})`);

/** A file name for a series: `heap after GC: payments` → `heap-after-gc-payments`. */
export const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export interface ReportInput {
  title: string;
  notes: string[];
  figures: Figure[];
  evaluated: Evaluated[];
  /** Seconds of load (the charts' time axis). */
  duration: number;
}

/** The report as markdown: the notes, the run's figures and invariants, every series, the charts. */
export function reportMarkdown(input: ReportInput): string {
  return [
    `# ${input.title}`,
    '',
    ...input.notes.map((n) => `- ${n}`),
    '',
    figuresTable(input.figures),
    '',
    seriesTable(input.evaluated),
    '',
    '## Charts',
    '',
    ...input.evaluated.flatMap(({ series }) => [`![${series.name}](charts/${slug(series.name)}.png)`, '']),
  ].join('\n');
}

/**
 * Writes the run's folder: report.md, series.json (every point and window with its verdict, to
 * chart or compare again) and charts/<series>.svg; answers the charts to render as PNG.
 */
export function writeReport(
  dir: string,
  input: ReportInput,
): Array<{ svg: string; png: string; width: number; height: number }> {
  const charts = join(dir, 'charts');
  mkdirSync(charts, { recursive: true });
  const rendered: Array<{ svg: string; png: string; width: number; height: number }> = [];
  for (const { series, verdict } of input.evaluated) {
    const svg = svgChart(series, verdict, input.duration);
    writeFileSync(join(charts, `${slug(series.name)}.svg`), svg);
    rendered.push({ svg, png: join(charts, `${slug(series.name)}.png`), ...CHART });
  }
  writeFileSync(join(dir, 'report.md'), reportMarkdown(input));
  writeFileSync(
    join(dir, 'series.json'),
    JSON.stringify(input.evaluated.map(({ series, verdict }) => ({ ...series, verdict }))),
  );
  return rendered;
}
