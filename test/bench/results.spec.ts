import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTable, isMet, readResults, report, RESULTS_ENV } from '../../bench/support/results';

/** The summary `npm run bench` ends with: figures reported by each script, judged against their targets. */
describe('bench summary table', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gw-bench-results-'))));
  afterEach(() => {
    delete process.env[RESULTS_ENV];
    rmSync(dir, { recursive: true, force: true });
  });

  it('collects what scripts report in the file run.ts names, and nothing when run alone', () => {
    const file = join(dir, 'results.jsonl');
    report({ figure: 'alone', value: 1, unit: '/s' });
    expect(readResults(file)).toEqual([]);
    process.env[RESULTS_ENV] = file;
    report({
      figure: 'sessions created/s',
      value: 96,
      unit: '/s',
      target: 300,
      comparison: '>=',
      limit: 3200,
      limitName: 'bare INSERT',
    });
    report({ figure: 'p99', value: 659, unit: 'ms', target: 50, comparison: '<' });
    expect(readResults(file).map((f) => [f.figure, f.value])).toEqual([
      ['sessions created/s', 96],
      ['p99', 659],
    ]);
  });

  it('judges each comparison, a missing measurement as not met, and no target as no verdict', () => {
    expect(isMet({ figure: 'a', value: 300, unit: '/s', target: 300, comparison: '>=' })).toBe(true);
    expect(isMet({ figure: 'b', value: 50, unit: 'ms', target: 50, comparison: '<' })).toBe(false);
    expect(isMet({ figure: 'c', value: 12, unit: 'statements', target: 12, comparison: '<=' })).toBe(true);
    expect(isMet({ figure: 'd', value: NaN, unit: 'ms', target: 100, comparison: '<' })).toBe(false);
    expect(isMet({ figure: 'e', value: 9, unit: '/s' })).toBeUndefined();
  });

  it('prints target, verdict, the limit with the share reached, and a row for a failed script', () => {
    const table = formatTable(
      [
        {
          script: 'payments',
          figure: 'sessions created/s',
          value: 96,
          unit: '/s',
          target: 300,
          comparison: '>=',
          limit: 3200,
          limitName: 'bare INSERT',
        },
        { script: 'replicas', figure: '2 replicas', value: 10.7, unit: '/s', note: 'two cores only' },
        { script: 'peers', figure: 'router / Hive', value: 1.46, unit: '×', target: 1, comparison: '>=' },
        { script: 'peers', figure: 'share of direct', value: 81, unit: '/s', ratio: true },
        { script: 'peers', figure: 'router CPU', value: 0.171, unit: 'ms', target: 0.25, comparison: '<=' },
      ],
      ['events (exit 1)'],
    ).split('\n');
    expect(table[0]).toMatch(/^figure +\| kind +\| measured \| target +\| met \| physical limit \(same run\)$/);
    expect(table[2]).toMatch(
      /^payments: sessions created\/s +\| absolute \| +96\/s \| ≥ 300\/s +\| no +\| 3200\/s bare INSERT \(3% of it\)$/,
    );
    expect(table[3]).toMatch(/^replicas: 2 replicas +\| absolute \| +10\.7\/s \| +\| +\|$/);
    // A ratio (comparable across machines) is marked apart from absolute figures.
    expect(table[4]).toMatch(/^peers: router \/ Hive +\| ratio +\| +1\.5 × \| ≥ 1 × +\| yes/);
    expect(table[5]).toMatch(/^peers: share of direct +\| ratio +\|/);
    // A figure below 1 keeps two digits (0.25 ms is not 0.3 ms).
    expect(table[6]).toMatch(/^peers: router CPU +\| absolute \| +0\.17 ms \| ≤ 0\.25 ms \| yes/);
    expect(table[7]).toMatch(/^events \(exit 1\): FAILED .*\| no/);
    expect(table).toContain('  replicas: 2 replicas: two cores only');
  });
});
