import {
  evaluate,
  firstQuarter,
  lastThreeQuarters,
  latencySpans,
  p99Range,
  slope,
  type Point,
  type Rule,
  type Series,
  type Window,
} from '../../scripts/soak/verdicts';
import { RULES } from '../../scripts/soak/series';

/** The soak's verdicts (scripts/soak/verdicts.ts): each passes a steady series and fails the growth it names. */
describe('soak verdicts', () => {
  const TEN_MIN = 600;
  /** A sample every 10 s over `duration` seconds, value f(t). */
  const sampled = (duration: number, f: (t: number, i: number) => number): Point[] =>
    Array.from({ length: duration / 10 + 1 }, (_, i) => ({ t: i * 10, v: f(i * 10, i) }));
  const series = (rule: Rule, points: Point[], windows?: Window[]): Series => ({
    name: 'x',
    unit: 'MB',
    rule,
    points,
    windows,
  });
  // A fixed wobble (no randomness in a spec): ±0.3 around the level.
  const wobble = (i: number) => [0.3, -0.2, 0.1, -0.3, 0.2, 0][i % 6]!;

  describe('least squares', () => {
    it('is the slope of a line, per second', () => {
      expect(slope(sampled(100, (t) => 2 * t + 5))).toBeCloseTo(2, 10);
      expect(slope(sampled(100, () => 7))).toBe(0);
    });
    it('has none below two distinct instants', () => {
      expect(slope([{ t: 0, v: 1 }])).toBeUndefined();
      expect(
        slope([
          { t: 5, v: 1 },
          { t: 5, v: 3 },
        ]),
      ).toBeUndefined();
    });
    it('splits the run into its first quarter and the last three', () => {
      const points = sampled(400, (t) => t);
      expect(firstQuarter(points, 400).map((p) => p.t)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
      expect(lastThreeQuarters(points, 400)[0]!.t).toBe(100);
      expect(lastThreeQuarters(points, 400)).toHaveLength(31);
    });
  });

  describe('post-GC heap: slope <= 1 MB per 10 minutes over the last three quarters', () => {
    it('passes a flat heap with noise', () => {
      const verdict = evaluate(
        series(
          RULES.heap,
          sampled(TEN_MIN, (_, i) => 200 + wobble(i)),
        ),
        TEN_MIN,
      );
      expect(verdict.ok).toBe(true);
      expect(Math.abs(verdict.slopePer10Min!)).toBeLessThan(1);
    });
    it('passes a warm-up that ends within the first quarter', () => {
      const warm = (t: number) => 180 + Math.min(t, 120) / 6; // +20 MB in the first two minutes
      expect(evaluate(series(RULES.heap, sampled(TEN_MIN, warm)), TEN_MIN).ok).toBe(true);
    });
    it('fails a leak of 3 MB per 10 minutes and says its slope', () => {
      const verdict = evaluate(
        series(
          RULES.heap,
          sampled(TEN_MIN, (t, i) => 200 + t / 200 + wobble(i)),
        ),
        TEN_MIN,
      );
      expect(verdict.ok).toBe(false);
      expect(verdict.slopePer10Min).toBeCloseTo(3, 0);
      expect(verdict.detail).toMatch(/^slope 3\.\d\d ± 0\.\d\d MB\/10 min over 46 samples$/);
    });
    // The post-GC heap of a steady platform rises and falls about a megabyte over minutes (the 60-minute soak).
    const FIVE_MIN = 300;
    const waves = (t: number, i: number) => 190 + Math.sin((2 * Math.PI * t) / 240) + wobble(i) / 2;
    it('passes five minutes of a steady heap in waves, whose slope alone reads above the bound', () => {
      const points = sampled(FIVE_MIN, (t, i) => waves(t, i));
      const verdict = evaluate(series(RULES.heap, points), FIVE_MIN);
      expect(verdict.slopePer10Min!).toBeGreaterThan(1);
      expect(verdict.ok).toBe(true);
    });
    it('fails five minutes of a leak of 10 MB per 10 minutes under the same waves', () => {
      const points = sampled(FIVE_MIN, (t, i) => waves(t, i) + t / 60);
      const verdict = evaluate(series(RULES.heap, points), FIVE_MIN);
      expect(verdict.ok).toBe(false);
    });
    it('gives an hour a margin so small that the verdict is the slope itself', () => {
      const HOUR = 3_600;
      const steady = evaluate(
        series(
          RULES.heap,
          sampled(HOUR, (t, i) => waves(t, i)),
        ),
        HOUR,
      );
      const leak = evaluate(
        series(
          RULES.heap,
          sampled(HOUR, (t, i) => waves(t, i) + t / 400),
        ),
        HOUR,
      );
      expect(steady.ok).toBe(true);
      expect(leak.slopePer10Min).toBeCloseTo(1.5, 0);
      expect(leak.ok).toBe(false);
    });
    it('gives no verdict on too few samples', () => {
      expect(
        evaluate(
          series(
            RULES.heap,
            sampled(20, () => 1),
          ),
          20,
        ).ok,
      ).toBeUndefined();
    });
  });

  describe('handles and sockets: slope <= 10 per 10 minutes beyond noise', () => {
    const FIVE_MIN = 300;
    const HOUR = 3_600;
    // The one-process hour's sockets: 70-155, in swings of a few minutes with the requests in flight.
    const swinging = (t: number, i: number) => 110 + 40 * Math.sin((2 * Math.PI * t) / 270) + (i % 3) * 4;
    it('passes five minutes flat at ~67 with one sample of 144 after the first quarter (the CI run a maximum failed)', () => {
      const points = sampled(FIVE_MIN, (t, i) => (t === 170 ? 144 : 67 + (i % 4)));
      for (const rule of [RULES.handles, RULES.sockets]) {
        const verdict = evaluate({ ...series(rule, points), unit: '' }, FIVE_MIN);
        expect(verdict.ok).toBe(true);
        expect(verdict.bound).toBe('slope <= 10/10 min');
      }
    });
    it('passes five minutes and an hour of swings by ±40', () => {
      expect(evaluate(series(RULES.sockets, sampled(FIVE_MIN, swinging)), FIVE_MIN).ok).toBe(true);
      expect(evaluate(series(RULES.sockets, sampled(HOUR, swinging)), HOUR).ok).toBe(true);
    });
    it('fails five minutes that keep a socket every ten seconds', () => {
      const verdict = evaluate(
        {
          ...series(
            RULES.sockets,
            sampled(FIVE_MIN, (t, i) => 67 + (i % 4) + t / 10),
          ),
          unit: '',
        },
        FIVE_MIN,
      );
      expect(verdict.ok).toBe(false);
      expect(verdict.detail).toMatch(/^slope 60\.\d ± \d\.\d\d\/10 min over 23 samples$/);
    });
    it('fails an hour that keeps three handles a minute under the same swings (the margin is ~12 there)', () => {
      const verdict = evaluate(
        series(
          RULES.handles,
          sampled(HOUR, (t, i) => swinging(t, i) + t / 20),
        ),
        HOUR,
      );
      expect(verdict.ok).toBe(false);
    });
    it("passes a pool that opens up to its size once (CI's 6 -> 10), fails one that keeps a connection a minute", () => {
      const five = 300;
      const opened = sampled(five, (t) => (t < 100 ? 6 : 10));
      expect(evaluate(series(RULES.connections, opened), five).ok).toBe(true);
      const keeping = sampled(HOUR, (t, i) => 6 + (i % 3) + t / 60);
      expect(evaluate(series(RULES.connections, keeping), HOUR).ok).toBe(false);
    });
  });

  describe('queues, outbox, deliveries: not growing', () => {
    it('passes a backlog that comes and goes', () => {
      expect(
        evaluate(
          series(
            RULES.backlog,
            sampled(TEN_MIN, (_, i) => [0, 5, 12, 3, 0, 8][i % 6]!),
          ),
          TEN_MIN,
        ).ok,
      ).toBe(true);
    });
    it('fails a backlog that grows one message per sample', () => {
      const verdict = evaluate(
        series(
          RULES.backlog,
          sampled(TEN_MIN, (_, i) => i),
        ),
        TEN_MIN,
      );
      expect(verdict.ok).toBe(false);
      expect(verdict.detail).toMatch(/^grows 45 MB across the last three quarters \(slope 60\/10 min\)$/);
    });
  });

  describe('p99: the last span within 1.5x of the first, beyond noise', () => {
    const windows = (duration: number, ms: (t: number, k: number) => number): Window[] =>
      Array.from({ length: duration / 10 }, (_, i) => ({
        t: (i + 1) * 10,
        values: Array.from({ length: 40 }, (__, k) => ms((i + 1) * 10, k % 10)),
      }));
    const p99 = (w: Window[], duration: number) => evaluate(series(RULES.p99, [], w), duration);

    it('compares the first and last ten minutes of a run of twenty minutes or more', () => {
      expect(latencySpans(3600)).toEqual({ first: [0, 600], last: [3000, 3600] });
      expect(latencySpans(300)).toEqual({ first: [0, 75], last: [225, 300] });
    });
    it('passes latencies that stay put', () => {
      expect(
        p99(
          windows(TEN_MIN, (_, k) => 40 + k * 10),
          TEN_MIN,
        ).ok,
      ).toBe(true);
    });
    it('fails a p99 that doubles', () => {
      const verdict = p99(
        windows(TEN_MIN, (t, k) => (t > 450 ? 2 : 1) * (40 + k * 20)),
        TEN_MIN,
      );
      expect(verdict.ok).toBe(false);
      expect(verdict.first).toBe(220);
      expect(verdict.last).toBe(440);
    });
    it('lets a small p99 move by the slack (25 ms) whatever the ratio', () => {
      expect(
        p99(
          windows(TEN_MIN, (t) => (t > 450 ? 30 : 10)),
          TEN_MIN,
        ).ok,
      ).toBe(true);
    });
    it('bounds a p99 by the order statistics its calls allow: wide of 600 calls, narrow of 5,000', () => {
      const slowestRanks = (n: number) => {
        const calls = Array.from({ length: n }, (_, k) => k + 1);
        const range = p99Range(calls)!;
        return [n + 1 - range.low, n + 1 - range.high];
      };
      expect(slowestRanks(600)).toEqual([12, 2]);
      expect(slowestRanks(5000)).toEqual([65, 37]);
      expect(p99Range([])).toBeUndefined();
    });
    /** n calls of `base` ms and the `slow` ones. */
    const calls = (n: number, base: number, slow: number[]) => [...Array<number>(n - slow.length).fill(base), ...slow];
    /** A five-minute run: a first span of 8 ms calls and 10 a forced GC overlapped, then `last`. */
    const fiveMinutes = (last: number[]) =>
      p99(
        [
          { t: 70, values: calls(648, 8, [60, 61, 62, 63, 64, 65, 66, 67, 68, 69]) },
          { t: 300, values: last },
        ],
        300,
      );
    it("passes a p99 that one stall lifts in a five-minute run (CI's 68 -> 115 ms on 648 and 629 calls)", () => {
      // Last span: 10 calls behind one 115 ms stall.
      const last = calls(629, 8.5, Array<number>(10).fill(115));
      const verdict = fiveMinutes(last);
      expect([verdict.first, verdict.last]).toEqual([63, 115]);
      expect(verdict.ok).toBe(true);
      expect(verdict.detail).toBe(
        'p99 63 ms (8-68 by noise) in the first span (648 calls), 115 ms (8.50-115) in the last (629)',
      );
    });
    it('fails a tail that grows beyond what its calls allow', () => {
      const last = calls(629, 8.5, Array<number>(20).fill(115));
      expect(fiveMinutes(last).ok).toBe(false);
    });
    it('gives no verdict with fewer than 500 calls in a span (its p99 would be one of its five slowest calls)', () => {
      expect(RULES.p99.minSamples).toBe(500);
      const sparse = windows(TEN_MIN, () => 10).map((w) => ({ ...w, values: w.values.slice(0, 1) }));
      expect(p99(sparse, TEN_MIN).ok).toBeUndefined();
    });
  });

  it('gives an informational series no verdict', () => {
    expect(
      evaluate(
        series(
          RULES.info,
          sampled(TEN_MIN, (t) => t),
        ),
        TEN_MIN,
      ).ok,
    ).toBeUndefined();
  });
});
