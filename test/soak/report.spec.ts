import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { svgChart } from '../../scripts/soak/chart';
import {
  evaluateAll,
  failures,
  figuresTable,
  markdownTable,
  seriesTable,
  slug,
  writeReport,
} from '../../scripts/soak/report';
import { buildSeries, queueSeries, RULES } from '../../scripts/soak/series';
import { forcedGcSeconds, type ProbeLine } from '../../scripts/soak/probes';
import type { Series } from '../../scripts/soak/verdicts';

/** The soak's report (scripts/soak/report.ts, chart.ts, series.ts): the tables, the failures, the files. */
describe('soak report', () => {
  const DURATION = 600;
  const at = (f: (t: number) => number) => Array.from({ length: 61 }, (_, i) => ({ t: i * 10, v: f(i * 10) }));
  const flatHeap: Series = { name: 'heap after GC: payments', unit: 'MB', rule: RULES.heap, points: at(() => 120) };
  const leakyHeap: Series = {
    name: 'heap after GC: router',
    unit: 'MB',
    rule: RULES.heap,
    points: at((t) => 100 + t / 100),
  };
  const rss: Series = { name: 'RSS: router', unit: 'MB', rule: RULES.info, points: at(() => 300) };
  const evaluated = evaluateAll([flatHeap, leakyHeap, rss], DURATION);

  it('pads a markdown table and escapes pipes in cells', () => {
    expect(markdownTable(['a', 'bb'], [['x|y', '1']])).toBe(
      ['| a    | bb |', '|------|----|', '| x\\|y | 1  |'].join('\n'),
    );
  });

  it('has one row per series with its first and last value, slope, bound and verdict', () => {
    const lines = seriesTable(evaluated).split('\n');
    expect(lines[0]).toMatch(/^\| series +\| first +\| last +\| slope \/10 min \| bound +\| verdict \|$/);
    expect(lines[2]).toMatch(
      /^\| heap after GC: payments \| 120 MB \| 120 MB \| 0 +\| slope <= 1 MB\/10 min \| PASS +\|$/,
    );
    expect(lines[3]).toMatch(
      /^\| heap after GC: router +\| 100 MB \| 106 MB \| 6\.00 +\| slope <= 1 MB\/10 min \| FAIL +\|$/,
    );
    // An informational series: no bound, no verdict.
    expect(lines[4]).toMatch(/^\| RSS: router +\| 300 MB \| 300 MB \| 0 +\| +\| +\|$/);
  });

  it('names each failed series with what it measured', () => {
    expect(failures(evaluated)).toEqual([
      'FAIL heap after GC: router: slope 6.00 ± 0 MB/10 min over 46 samples (bound: slope <= 1 MB/10 min)',
    ]);
  });

  it('prints the run figures and invariants with their verdicts', () => {
    const table = figuresTable([
      { figure: 'arrivals shed', value: '0', target: '0', verdict: 'PASS' },
      { figure: 'money conserved', value: 'difference 5', target: '', verdict: 'FAIL' },
    ]);
    expect(table.split('\n')[3]).toBe('| money conserved | difference 5 |        | FAIL    |');
  });

  it('writes report.md, series.json and one SVG chart per series', () => {
    const dir = mkdtempSync(join(tmpdir(), 'soak-report-spec-'));
    try {
      const charts = writeReport(dir, {
        title: 'Soak spec',
        notes: ['a note'],
        figures: [{ figure: 'arrivals shed', value: '0', target: '0', verdict: 'PASS' }],
        evaluated,
        duration: DURATION,
      });
      expect(charts.map((c) => c.png)).toEqual(evaluated.map((e) => join(dir, 'charts', `${slug(e.series.name)}.png`)));
      const report = readFileSync(join(dir, 'report.md'), 'utf8');
      expect(report).toContain('# Soak spec');
      expect(report).toContain('| heap after GC: router   | 100 MB | 106 MB | 6.00');
      expect(report).toContain('![heap after GC: router](charts/heap-after-gc-router.png)');
      const saved = JSON.parse(readFileSync(join(dir, 'series.json'), 'utf8'));
      expect(saved.map((s: { name: string; verdict: { ok?: boolean } }) => [s.name, s.verdict.ok])).toEqual([
        ['heap after GC: payments', true],
        ['heap after GC: router', false],
        ['RSS: router', undefined],
      ]);
      const svg = readFileSync(join(dir, 'charts', 'heap-after-gc-router.svg'), 'utf8');
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      expect(svg).toContain('heap after GC: router (MB) — FAIL');
      expect(svg.match(/<polyline/g)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('draws the bound of a bounded series and escapes names', () => {
    const pool: Series = { name: 'connections <a&b>', unit: '', rule: RULES.code, points: at(() => 50) };
    const [one] = evaluateAll([pool], DURATION);
    const svg = svgChart(one!.series, one!.verdict, DURATION);
    expect(svg).toContain('connections &lt;a&amp;b&gt;');
    expect(svg).toContain('stroke-dasharray');
  });

  it('sums the server-named fan-out queues and keeps the durable ones apart', () => {
    const sampled = new Map([
      ['queue depth: gateway.webhooks', [{ t: 10, v: 2 }]],
      ['queue depth: amq.gen-a', [{ t: 10, v: 1 }]],
      ['queue depth: amq.gen-b', [{ t: 10, v: 4 }]],
    ]);
    expect(queueSeries(sampled).map((s) => [s.name, s.points])).toEqual([
      ['queue depth: gateway.webhooks', [{ t: 10, v: 2 }]],
      ['queue depth: fan-out subscriber queues (2, summed)', [{ t: 10, v: 5 }]],
    ]);
  });

  it("turns each process's probe lines into its six series, within the load only", () => {
    const begin = 1_000_000;
    const line = (t: number, heapUsed: number): ProbeLine => ({
      t,
      pid: 7,
      gc: true,
      heapUsed,
      rss: 3e8,
      eventLoopDelayP99Ms: 2,
      handles: 40,
      sockets: 12,
      resources: {},
    });
    const series = buildSeries({
      probes: new Map([['payments', [line(begin - 5000, 1e8), line(begin + 10_000, 1.2e8)]]]),
      sampled: new Map(),
      windows: new Map(),
      begin,
      duration: 60,
    });
    expect(series.slice(0, 6).map((s) => s.name)).toEqual([
      'heap after GC: payments',
      'RSS: payments',
      'event loop delay p99: payments',
      'CPU: payments',
      'active handles: payments',
      'open sockets: payments',
    ]);
    expect(series[0]!.points).toEqual([{ t: 10, v: 120 }]);
    // One pool per process, each judged by its slope: the bound scales with the processes.
    expect(series.find((s) => s.name === 'PostgreSQL connections')!.rule).toEqual({ kind: 'slope', maxPer10Min: 5 });
    const split = buildSeries({
      probes: new Map([
        ['payments', [line(begin + 10_000, 1e8)]],
        ['router', [line(begin + 10_000, 1e8)]],
      ]),
      sampled: new Map(),
      windows: new Map(),
      begin,
      duration: 60,
    });
    expect(split.find((s) => s.name === 'PostgreSQL connections')!.rule).toMatchObject({ maxPer10Min: 10 });
  });

  it('judges the heap on the lines after a forced GC only, and charts how long each forced GC stopped the process', () => {
    const begin = 1_000_000;
    const line = (t: number, gc: boolean, heapUsed: number): ProbeLine => ({
      t,
      pid: 7,
      gc,
      heapUsed,
      forcedGcMs: gc ? 180 : 0,
      rss: 3e8,
      eventLoopDelayP99Ms: 2,
      handles: 40,
      sockets: 12,
      resources: {},
    });
    // Between two forced GCs the heap holds garbage (here 40 MB): not a sample of what is kept.
    const lines = [0, 1, 2, 3, 4, 5, 6].map((i) => line(begin + i * 10_000, i % 3 === 0, i % 3 === 0 ? 1e8 : 1.4e8));
    const series = buildSeries({
      probes: new Map([['platform', lines]]),
      sampled: new Map(),
      windows: new Map(),
      begin,
      duration: 60,
    });
    const heap = series.find((s) => s.name === 'heap after GC: platform')!;
    expect(heap.points).toEqual([0, 30, 60].map((t) => ({ t, v: 100 })));
    const pause = series.find((s) => s.name === 'forced GC pause: platform')!;
    expect(pause).toMatchObject({ unit: 'ms', rule: RULES.info });
    expect(pause.points).toEqual([0, 30, 60].map((t) => ({ t, v: 180 })));
    expect(series.find((s) => s.name === 'active handles: platform')!.points).toHaveLength(7);
    expect(forcedGcSeconds(60, 10)).toBe(60);
    expect(forcedGcSeconds(20, 10)).toBe(20);
    expect(forcedGcSeconds(5, 10)).toBe(10);
  });

  it("judges the heap without V8's compiled code and bytecode, which is charted apart and bounded", () => {
    const begin = 1_000_000;
    const line = (t: number, code: number): ProbeLine => ({
      t,
      pid: 7,
      gc: true,
      heapUsed: 1.2e8 + code,
      rss: 3e8,
      eventLoopDelayP99Ms: 2,
      handles: 40,
      sockets: 12,
      resources: {},
      spaces: { old_space: 1.1e8, code_space: code / 2, trusted_space: code / 2, large_object_space: 1e7 },
    });
    // The JIT compiles more and more (code +1.5 MB a minute): the data heap stays at 120 MB.
    const lines = Array.from({ length: 7 }, (_, i) => line(begin + i * 10_000, 2e7 + i * 250_000));
    const series = buildSeries({
      probes: new Map([['payments', lines]]),
      sampled: new Map(),
      windows: new Map(),
      begin,
      duration: 60,
    });
    const heap = series.find((s) => s.name === 'heap after GC: payments')!;
    const code = series.find((s) => s.name === 'compiled code: payments')!;
    expect(heap.points.map((p) => p.v)).toEqual(Array(7).fill(120));
    expect(code.points.map((p) => p.v)).toEqual([20, 20.25, 20.5, 20.75, 21, 21.25, 21.5]);
    expect(code.rule).toEqual({ kind: 'bounded', relative: 0, absolute: 2 });
  });
});
