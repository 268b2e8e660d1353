import { percentile } from '../chaos/evidence';

/**
 * The soak's verdicts as pure functions of the sampled series (docs/soak.md "Verdicts"): computed
 * over the steady-load phase only, `duration` seconds long, every point's `t` in seconds from its start.
 */
export interface Point {
  t: number;
  v: number;
}

/** A latency window: the durations (ms) of the calls that ended in the window ending at `t`. */
export interface Window {
  t: number;
  values: number[];
}

export type Rule =
  /**
   * The least-squares slope over the last three quarters at most `maxPer10Min` (post-GC heap, handles, sockets),
   * beyond its noise: it fails when even the slope less its margin (slopeMargin) is above.
   */
  | { kind: 'slope'; maxPer10Min: number }
  /** The last three quarters' max at most the first quarter's max × (1 + relative) + absolute. */
  | { kind: 'bounded'; absolute: number; relative: number }
  /** What the fit over the last three quarters grows across them (slope × their length) at most `floor`. */
  | { kind: 'flat'; floor: number }
  /**
   * p99 of the last span at most `ratio` × the first span's, or at most `slackMs` above it, beyond
   * noise: it fails when even the last span's lowest p99 its calls allow is above the first span's highest (p99Range).
   */
  | { kind: 'p99'; ratio: number; slackMs: number; minSamples: number }
  /** Shown and charted, no verdict. */
  | { kind: 'info' };

export interface Series {
  /** `heap after GC: payments`, `p99 ms: authorize`, ... */
  name: string;
  unit: string;
  rule: Rule;
  points: Point[];
  /** p99 rules: the raw durations per window. */
  windows?: Window[];
}

export interface Verdict {
  first: number | undefined;
  last: number | undefined;
  /** Least squares over the last three quarters, per 10 minutes. */
  slopePer10Min: number | undefined;
  /** The bound as the table prints it. */
  bound: string;
  /** undefined: no verdict (an informational series, or too few samples to judge). */
  ok: boolean | undefined;
  /** What was compared, for the log of a failure. */
  detail: string;
}

/** The least-squares slope of v over t (per second); undefined below two distinct instants. */
export function slope(points: readonly Point[]): number | undefined {
  const n = points.length;
  if (n < 2) return undefined;
  const meanT = points.reduce((s, p) => s + p.t, 0) / n;
  const meanV = points.reduce((s, p) => s + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - meanT) * (p.v - meanV);
    den += (p.t - meanT) ** 2;
  }
  return den === 0 ? undefined : num / den;
}

/**
 * How far the least-squares slope (per second) may be from the true one by noise alone: two
 * standard errors, widened when neighbouring residuals move together (lag-1 autocorrelation r:
 * by sqrt((1 + r) / (1 - r)), the effective number of independent samples falling with r). Why:
 * the post-GC heap rises and falls by about a megabyte over minutes with nothing retained (settlement
 * cycles, caches, requests in flight), so over five minutes a slope of +3 MB/10 min and of -3 is
 * noise: the one-process 60-minute soak's 46 five-minute windows had 11 above 1 MB/10 min by
 * slope alone, none by slope less margin, while a leak of 5 MB/10 min added to the same samples
 * failed all 46 (and 3 MB/10 min 42). Over an hour the margin is small: the verdict is the slope's.
 */
export function slopeMargin(points: readonly Point[]): number | undefined {
  const n = points.length;
  const perSecond = slope(points);
  if (perSecond === undefined || n < 4) return undefined;
  const meanT = points.reduce((sum, p) => sum + p.t, 0) / n;
  const meanV = points.reduce((sum, p) => sum + p.v, 0) / n;
  const residuals = points.map((p) => p.v - (meanV + perSecond * (p.t - meanT)));
  const squares = residuals.reduce((sum, r) => sum + r * r, 0);
  const spread = points.reduce((sum, p) => sum + (p.t - meanT) ** 2, 0);
  if (squares === 0) return 0;
  let lagged = 0;
  for (let i = 1; i < n; i += 1) lagged += residuals[i]! * residuals[i - 1]!;
  const r = Math.min(0.9, Math.max(0, lagged / squares));
  return 2 * Math.sqrt(squares / (n - 2) / spread) * Math.sqrt((1 + r) / (1 - r));
}

/**
 * The order statistics between which a span's true quantile `q` lies by noise alone, at 95 %
 * confidence both sides: `low` and `high` are the j-th and i-th slowest calls, chosen from the
 * binomial count of calls above the true quantile (n calls, each above it with chance 1 - q).
 * Why: a p99 of n calls is the ceil(n / 100)-th slowest, set by the handful of calls a checkpoint,
 * a forced GC or a settlement cycle slowed. Of 600 calls, the true p99 lies between the 12th and
 * the 2nd slowest; of 5,000 (an hour's ten-minute span), between the 65th and the 37th, so over
 * an hour the margin is narrow and the verdict is the p99's, as the heap's is its slope's.
 */
export function p99Range(values: readonly number[], q = 0.99): { low: number; high: number } | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const tail = 0.025;
  const sorted = [...values].sort((a, b) => a - b);
  const above = 1 - q;
  // P(at most k calls above the true quantile), k = 0, 1, ... (pmf in logs: (1 - q)^n underflows past ~70,000 calls).
  const atMost: number[] = [];
  let logPmf = n * Math.log1p(-above);
  let sum = 0;
  for (let k = 0; k <= n && sum < 1 - 1e-12; k += 1) {
    sum += Math.exp(logPmf);
    atMost.push(sum);
    logPmf += Math.log((n - k) / (k + 1)) + Math.log(above / q);
  }
  const cdf = (k: number) => (k < 0 ? 0 : (atMost[Math.min(k, atMost.length - 1)] ?? 1));
  // The j-th slowest is at most the true quantile when at most j - 1 calls are above it.
  let j = 1;
  while (j < n && cdf(j - 1) < 1 - tail) j += 1;
  // The i-th slowest is at least the true quantile when at least i calls are above it.
  let i = 1;
  while (i + 1 <= n && cdf(i) <= tail) i += 1;
  const slowest = (rank: number) => sorted[n - rank]!;
  return { low: slowest(j), high: slowest(i) };
}

/** The first quarter of the load phase: [0, duration / 4). */
export const firstQuarter = (points: readonly Point[], duration: number): Point[] =>
  points.filter((p) => p.t >= 0 && p.t < duration / 4);

/** The last three quarters: [duration / 4, duration]. */
export const lastThreeQuarters = (points: readonly Point[], duration: number): Point[] =>
  points.filter((p) => p.t >= duration / 4 && p.t <= duration);

/**
 * The spans whose p99s are compared: the first and last ten minutes, or for a run shorter than
 * twenty minutes the first and last quarters (two ten-minute spans would overlap).
 */
export function latencySpans(duration: number): { first: [number, number]; last: [number, number] } {
  const span = duration >= 1200 ? 600 : duration / 4;
  return { first: [0, span], last: [duration - span, duration] };
}

const PER_10_MIN = 600;
const max = (points: readonly Point[]) => (points.length ? Math.max(...points.map((p) => p.v)) : undefined);
const MIN_POINTS = 3;

export function evaluate(series: Series, duration: number): Verdict {
  const { rule, points } = series;
  const tail = lastThreeQuarters(points, duration);
  const perSecond = slope(tail);
  const base = {
    first: points[0]?.v,
    last: points.at(-1)?.v,
    slopePer10Min: perSecond === undefined ? undefined : perSecond * PER_10_MIN,
  };
  const tooFew = tail.length < MIN_POINTS;
  switch (rule.kind) {
    case 'info':
      return { ...base, bound: '', ok: undefined, detail: '' };
    case 'slope': {
      const unit = series.unit ? ` ${series.unit}` : '';
      const bound = `slope <= ${rule.maxPer10Min}${unit}/10 min`;
      if (tooFew || base.slopePer10Min === undefined)
        return { ...base, bound, ok: undefined, detail: `${tail.length} samples: too few` };
      const margin = (slopeMargin(tail) ?? 0) * PER_10_MIN;
      return {
        ...base,
        bound,
        ok: base.slopePer10Min - margin <= rule.maxPer10Min,
        detail: `slope ${format(base.slopePer10Min)} ± ${format(margin)}${unit}/10 min over ${tail.length} samples`,
      };
    }
    case 'bounded': {
      const head = max(firstQuarter(points, duration));
      const rest = max(tail);
      if (head === undefined || rest === undefined)
        return { ...base, bound: 'bounded', ok: undefined, detail: 'no samples in a quarter' };
      const limit = head * (1 + rule.relative) + rule.absolute;
      return {
        ...base,
        bound: `max <= ${format(limit)} (first quarter's ${format(head)} +${rule.relative * 100}% +${rule.absolute})`,
        ok: rest <= limit,
        detail: `max of the last three quarters ${format(rest)}, bound ${format(limit)}`,
      };
    }
    case 'flat': {
      const bound = `growth <= ${rule.floor}`;
      if (tooFew || perSecond === undefined)
        return { ...base, bound, ok: undefined, detail: `${tail.length} samples: too few` };
      const growth = perSecond * (tail.at(-1)!.t - tail[0]!.t);
      return {
        ...base,
        bound,
        ok: growth <= rule.floor,
        detail: `grows ${format(growth)} ${series.unit} across the last three quarters (slope ${format(perSecond * PER_10_MIN)}/10 min)`,
      };
    }
    case 'p99':
      return p99Verdict(series, rule, duration, base.slopePer10Min);
  }
}

function p99Verdict(
  series: Series,
  rule: Extract<Rule, { kind: 'p99' }>,
  duration: number,
  slopePer10Min: number | undefined,
): Verdict {
  const spans = latencySpans(duration);
  const within = ([from, to]: [number, number]) =>
    (series.windows ?? []).filter((w) => w.t > from && w.t <= to + 1e-9).flatMap((w) => w.values);
  const firstValues = within(spans.first);
  const lastValues = within(spans.last);
  const first = percentile(firstValues, 99);
  const last = percentile(lastValues, 99);
  const bound = `p99 last <= ${rule.ratio}x first (or +${rule.slackMs} ms), beyond noise`;
  if (first === undefined || last === undefined || Math.min(firstValues.length, lastValues.length) < rule.minSamples)
    return {
      first,
      last,
      slopePer10Min,
      bound,
      ok: undefined,
      detail: `${firstValues.length} / ${lastValues.length} calls in the first / last span: too few (< ${rule.minSamples})`,
    };
  const before = p99Range(firstValues)!;
  const after = p99Range(lastValues)!;
  return {
    first,
    last,
    slopePer10Min,
    bound,
    ok: after.low <= before.high * rule.ratio || after.low - before.high <= rule.slackMs,
    detail:
      `p99 ${format(first)} ms (${format(before.low)}-${format(before.high)} by noise) in the first span (${firstValues.length} calls), ` +
      `${format(last)} ms (${format(after.low)}-${format(after.high)}) in the last (${lastValues.length})`,
  };
}

/** A figure as the table prints it: three significant digits at most, no exponent. */
export function format(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '';
  const abs = Math.abs(value);
  if (abs >= 100 || Number.isInteger(value)) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
