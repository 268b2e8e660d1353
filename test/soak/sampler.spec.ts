import { canaryMs } from '../../scripts/soak/sampler';
import { buildSeries } from '../../scripts/soak/series';

/**
 * The soak's witnesses of the machine and of PostgreSQL's own work (scripts/soak/sampler.ts): what
 * tells a platform that got slower from a machine that did, charted without a verdict.
 */
describe('soak sampler: witnesses of the machine', () => {
  it('times a fixed computation in milliseconds', () => {
    // ~1.4 ms a try on this 2-core machine (far more under the tests' coverage counters): no bound on it here.
    const ms = canaryMs();
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
  });

  it('charts the machine and PostgreSQL witnesses with no verdict', () => {
    const point = [{ t: 10, v: 1 }];
    const names = [
      'machine CPU stolen',
      'machine speed: a fixed computation',
      'PostgreSQL autovacuum workers',
      'PostgreSQL buffers written by checkpoints',
    ];
    const series = buildSeries({
      probes: new Map(),
      sampled: new Map(names.map((name) => [name, point])),
      windows: new Map(),
      begin: 0,
      duration: 60,
    });
    for (const name of names) {
      const one = series.find((s) => s.name === name);
      expect(one?.points).toEqual(point);
      expect(one?.rule).toEqual({ kind: 'info' });
    }
  });
});
