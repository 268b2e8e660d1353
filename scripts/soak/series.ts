import { percentile } from '../chaos/evidence';
import type { ProbeLine } from './probes';
import { probePoints } from './probes';
import type { Point, Rule, Series, Window } from './verdicts';

/**
 * The rules each series is judged by (docs/soak.md "Verdicts" says why these numbers):
 * post-GC heap (V8's compiled code left out, probes.ts) by its slope, compiled code bounded; handles and
 * sockets and connections by their slope; backlogs (queues, outbox, deliveries, arrivals in flight) by their growth; p99s by the
 * first and last spans; RSS, event-loop delay, CPU, p50s and open subscriptions charted only.
 */
export const RULES = {
  heap: { kind: 'slope', maxPer10Min: 1 },
  // Compiled code grows while the JIT warms up, then stays: 2 MB more than the first quarter's most is code made per request.
  code: { kind: 'bounded', relative: 0, absolute: 2 },
  // Handles and sockets swing by ±40 over minutes with the requests in flight (the one-process
  // hour: 70-155 sockets), so a maximum says which quarter caught a burst, not whether they are
  // kept: a five-minute CI run failed on one sample of 144 against a first quarter that peaked at 70.
  // Kept ones show as a trend, judged beyond its noise as the heap is: over an hour of such swings
  // the margin is ~12, so three kept a minute fail; five minutes catch only gross ones (one per payment).
  handles: { kind: 'slope', maxPer10Min: 10 },
  sockets: { kind: 'slope', maxPer10Min: 10 },
  // Pools open connections lazily up to their size, when a burst (a checkpoint, a settlement cycle)
  // holds more at once: a bound on the maximum said which quarter caught one. A CI run (1 December
  // 2026) failed a pool that went 6 -> 10 (its size) once, slope -0.02/10 min. Kept ones are a trend,
  // judged beyond noise as handles are; a pool held full shows as callers waiting, judged apart.
  connections: { kind: 'slope', maxPer10Min: 5 },
  backlog: { kind: 'flat', floor: 20 },
  // A p99 of n calls is the ceil(n / 100)-th slowest: below 500, one of the five slowest calls of the
  // span, which one GC pause or settlement cycle makes (five-minute runs failed on 125-260 calls a
  // span, a different operation each run, on a quiet machine). An hour's spans have thousands.
  p99: { kind: 'p99', ratio: 1.5, slackMs: 25, minSamples: 500 },
  info: { kind: 'info' },
} as const satisfies Record<string, Rule>;

/** An operation with fewer calls over the whole load is not listed (made only at the start). */
const MIN_LISTED_CALLS = 40;

/** Operations the chaos client names after a method and path are the run's own reads of cores and the like, not load. */
const isLoad = (operation: string) => !/^(GET|POST|PUT|DELETE|PATCH) /.test(operation);

export interface SeriesInputs {
  probes: Map<string, ProbeLine[]>;
  sampled: Map<string, Point[]>;
  windows: Map<string, Window[]>;
  /** When the load began (epoch ms) and how long it ran (s). */
  begin: number;
  duration: number;
}

export function buildSeries({ probes, sampled, windows, begin, duration }: SeriesInputs): Series[] {
  const series: Series[] = [];
  for (const [service, lines] of [...probes].sort(([a], [b]) => a.localeCompare(b))) {
    const p = probePoints(lines, begin, duration);
    series.push(
      { name: `heap after GC: ${service}`, unit: 'MB', rule: RULES.heap, points: p.heap },
      ...(p.code.length
        ? [{ name: `compiled code: ${service}`, unit: 'MB', rule: RULES.code, points: p.code } satisfies Series]
        : []),
      ...(p.forcedGc.length
        ? [{ name: `forced GC pause: ${service}`, unit: 'ms', rule: RULES.info, points: p.forcedGc } satisfies Series]
        : []),
      { name: `RSS: ${service}`, unit: 'MB', rule: RULES.info, points: p.rss },
      { name: `event loop delay p99: ${service}`, unit: 'ms', rule: RULES.info, points: p.eventLoopDelay },
      { name: `CPU: ${service}`, unit: '% of a core', rule: RULES.info, points: p.cpu },
      { name: `active handles: ${service}`, unit: '', rule: RULES.handles, points: p.handles },
      { name: `open sockets: ${service}`, unit: '', rule: RULES.sockets, points: p.sockets },
    );
    if (p.poolConnections.length)
      series.push(
        { name: `database pool: ${service}`, unit: 'connections', rule: RULES.connections, points: p.poolConnections },
        { name: `waiting for a connection: ${service}`, unit: '', rule: RULES.backlog, points: p.poolWaiting },
      );
  }
  const of = (name: string) => sampled.get(name) ?? [];
  series.push(
    {
      name: 'PostgreSQL connections',
      unit: '',
      // One pool per platform process (the split layout has six): each may keep connections at that rate.
      rule: { ...RULES.connections, maxPer10Min: RULES.connections.maxPer10Min * Math.max(1, probes.size) },
      points: of('PostgreSQL connections'),
    },
    { name: 'outbox unpublished', unit: 'rows', rule: RULES.backlog, points: of('outbox unpublished') },
    {
      name: 'webhook deliveries pending',
      unit: 'rows',
      rule: RULES.backlog,
      points: of('webhook deliveries pending'),
    },
    { name: 'arrivals in flight', unit: '', rule: RULES.backlog, points: of('arrivals in flight') },
    { name: 'subscriptions open', unit: '', rule: RULES.info, points: of('subscriptions open') },
    // The machine is shared: a latency that rises with the machine's CPU and not the platform's is the neighbours'.
    { name: 'machine CPU busy', unit: '% of all cores', rule: RULES.info, points: of('machine CPU busy') },
    { name: 'machine CPU stolen', unit: '% of all cores', rule: RULES.info, points: of('machine CPU stolen') },
    // A fixed computation's time: when it rises with every process's CPU, the machine slowed, not the platform.
    {
      name: 'machine speed: a fixed computation',
      unit: 'ms',
      rule: RULES.info,
      points: of('machine speed: a fixed computation'),
    },
    {
      name: 'PostgreSQL autovacuum workers',
      unit: '',
      rule: RULES.info,
      points: of('PostgreSQL autovacuum workers'),
    },
    {
      name: 'PostgreSQL buffers written by checkpoints',
      unit: 'per sample',
      rule: RULES.info,
      points: of('PostgreSQL buffers written by checkpoints'),
    },
  );
  series.push(...queueSeries(sampled));
  for (const [operation, list] of [...windows].sort(([a], [b]) => a.localeCompare(b))) {
    // Calls made only at the start (a payer's consent, approval and token) have nothing to compare.
    const calls = list.reduce((n, w) => n + w.values.length, 0);
    if (!isLoad(operation) || calls < MIN_LISTED_CALLS) continue;
    const withCalls = list.filter((w) => w.values.length);
    const at = (p: number) => withCalls.map((w) => ({ t: w.t, v: percentile(w.values, p)! }));
    series.push(
      { name: `p50: ${operation}`, unit: 'ms', rule: RULES.info, points: at(50) },
      { name: `p99: ${operation}`, unit: 'ms', rule: RULES.p99, points: at(99), windows: list },
    );
  }
  return series;
}

/**
 * The durable queues (consume groups: `gateway.webhooks`, ...) one by one; the server-named
 * exclusive queues of fan-out subscribers (`amq.gen-…`, one per router or service subscription)
 * summed into one series, their names meaning nothing to a reader.
 */
export function queueSeries(sampled: Map<string, Point[]>): Series[] {
  const prefix = 'queue depth: ';
  const names = [...sampled.keys()].filter((n) => n.startsWith(prefix)).sort();
  const named = names.filter((n) => !n.startsWith(`${prefix}amq.gen-`));
  const fanOut = names.filter((n) => n.startsWith(`${prefix}amq.gen-`));
  const series: Series[] = named.map((name) => ({
    name,
    unit: 'msgs',
    rule: RULES.backlog,
    points: sampled.get(name) ?? [],
  }));
  if (fanOut.length) {
    const sums = new Map<number, number>();
    for (const name of fanOut) for (const p of sampled.get(name) ?? []) sums.set(p.t, (sums.get(p.t) ?? 0) + p.v);
    series.push({
      name: `queue depth: fan-out subscriber queues (${fanOut.length}, summed)`,
      unit: 'msgs',
      rule: RULES.backlog,
      points: [...sums].sort(([a], [b]) => a - b).map(([t, v]) => ({ t, v })),
    });
  }
  return series;
}
