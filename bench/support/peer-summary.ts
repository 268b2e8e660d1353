import type { LoadResult } from './load';
import { isMet, report, type Figure } from './results';

/** One measured run of bench/peers.ts: one gateway, one operation and key pattern, one round. */
export interface PeerRun {
  op: string;
  keys: string;
  gateway: string;
  round: number;
  result: LoadResult;
  /** The gateway process's CPU over the run / requests answered (NaN: no gateway, the direct subgraph). */
  cpuMsPerRequest: number;
  /** Our router only: subgraph fetches it saved (in-flight sharing) per request answered. */
  savedPerRequest: number;
}

const LABEL: Record<string, string> = {
  single: 'one subgraph (alias resolution)',
  cross: 'across subgraphs (alias + its bank)',
};
/** bench/peers.ts's name for Hive Gateway on @graphql-hive/router-runtime (BENCH_PEERS_GATEWAYS `hive-rust`). */
export const HIVE_RUST = 'hive, rust planner';
const PEER_NAME: Record<string, string> = {
  apollo: "Apollo gateway's",
  hive: "Hive Gateway's",
  [HIVE_RUST]: "Hive Gateway's (Rust planner)",
};

/**
 * Issue 32's throughput targets: hot keys at least level with Hive Gateway, across subgraphs twice
 * its throughput; with its Rust planner, Hive's fastest mode, 1.5× across subgraphs.
 */
const throughputTarget = (peer: string, op: string, keys: string): number | undefined => {
  if (peer === 'hive') return keys === 'hot' ? 1 : op === 'cross' ? 2 : undefined;
  if (peer === HIVE_RUST && op === 'cross') return 1.5;
  return undefined;
};
const SIGN = { '>=': '≥', '<=': '≤', '<': '<' } as const;

export const median = (values: number[]): number => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: number[], digits: number): string => {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return 'n/a';
  const m = median(finite).toFixed(digits);
  return finite.length > 1 ? `${m} [${Math.min(...finite).toFixed(digits)}–${Math.max(...finite).toFixed(digits)}]` : m;
};

/** `distinct` reads "distinct keys"; an open-loop case's `distinct, 220/s offered` reads "distinct keys, 220/s offered". */
const keysLabel = (keys: string): string => keys.replace(/^(\w+)/, '$1 keys');

/** The runs of one case by gateway, and the per-round ratio of our router's figure to another's. */
function caseOf(runs: PeerRun[], op: string, keys: string) {
  const mine = runs.filter((run) => run.op === op && run.keys === keys);
  const gateways = [...new Set(mine.map((run) => run.gateway))];
  const of = (gateway: string) => mine.filter((run) => run.gateway === gateway);
  const ratios = (other: string, figure: (run: PeerRun) => number) =>
    of('router').flatMap((ours) => {
      const theirs = of(other).find((run) => run.round === ours.round);
      return theirs ? [figure(ours) / figure(theirs)] : [];
    });
  return { gateways, of, ratios };
}

/** The cases of a run, in the order they ran: [op, keys]. */
const casesOf = (runs: PeerRun[]): [string, string][] =>
  [...new Set(runs.map((run) => `${run.op}\n${run.keys}`))].map((key) => key.split('\n') as [string, string]);

/** The summary printed after the runs: per case, each gateway's medians with their range, then our ratios. */
export function peerSummary(runs: PeerRun[]): string {
  const lines: string[] = [];
  for (const [op, keys] of casesOf(runs)) {
    const { gateways, of, ratios } = caseOf(runs, op, keys);
    lines.push(`\n${LABEL[op] ?? op}, ${keysLabel(keys)}: median [min–max] of ${of(gateways[0]!).length} runs each`);
    lines.push(
      `  ${'gateway'.padEnd(18)} ${'req/s'.padStart(18)} ${'p50 ms'.padStart(18)} ${'p99 ms'.padStart(20)} ${'CPU ms/request'.padStart(20)}  fetches saved/request`,
    );
    for (const gateway of gateways) {
      const rows = of(gateway);
      lines.push(
        `  ${gateway.padEnd(18)} ${spread(
          rows.map((r) => r.result.perSecond),
          0,
        ).padStart(18)} ${spread(
          rows.map((r) => r.result.p50Ms),
          1,
        ).padStart(18)} ${spread(
          rows.map((r) => r.result.p99Ms),
          1,
        ).padStart(20)} ${spread(
          rows.map((r) => r.cpuMsPerRequest),
          2,
        ).padStart(20)}  ${spread(
          rows.map((r) => r.savedPerRequest),
          2,
        )}`,
      );
    }
    for (const other of gateways.filter((gateway) => gateway !== 'router')) {
      const rps = ratios(other, (run) => run.result.perSecond);
      if (!rps.length) continue;
      lines.push(
        `  our router / ${other}: throughput ${spread(rps, 2)}×, p99 ${spread(
          ratios(other, (run) => run.result.p99Ms),
          2,
        )}×, CPU per request ${spread(
          ratios(other, (run) => run.cpuMsPerRequest),
          2,
        )}×`,
      );
    }
    // The case's figures with a target, as reportPeers sends them to the summary of `npm run bench`.
    for (const figure of caseFigures(runs, op, keys).filter((f) => f.target !== undefined)) {
      const unit = (value: number) =>
        `${value.toFixed(figure.unit === '%' ? 0 : 2)}${figure.unit === '%' ? '' : ' '}${figure.unit}`;
      lines.push(
        `  ${figure.figure}: ${unit(figure.value)} (${figure.note}), target ${SIGN[figure.comparison ?? '>=']} ${unit(
          figure.target!,
        )}: ${isMet(figure) ? 'met' : 'missed'}`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * The figures to the summary table, each name prefixed with its case. Ratios (our router
 * against a peer or the direct subgraph, in the same run) are marked as such: they compare across
 * machines, req/s and CPU milliseconds do not.
 */
export function reportPeers(runs: PeerRun[]): void {
  for (const [op, keys] of casesOf(runs)) {
    const label = `${op === 'single' ? 'one subgraph' : 'across subgraphs'}, ${keysLabel(keys)}`;
    for (const figure of caseFigures(runs, op, keys)) report({ ...figure, figure: `${label}: ${figure.figure}` });
  }
}

/** One case's figures (our router against the others), named without the case. */
function caseFigures(runs: PeerRun[], op: string, keys: string): Figure[] {
  const { gateways, of, ratios } = caseOf(runs, op, keys);
  if (!gateways.includes('router')) return [];
  const figures: Figure[] = [];
  const range = (values: number[], digits: number) => `median of ${values.length}: ${spread(values, digits)}`;
  // At one offered rate both gateways answer what is offered: their throughputs are equal by
  // construction, and the open-loop runs answer the p99 figure only.
  const offered = keys.includes('offered');
  for (const peer of ['hive', HIVE_RUST, 'apollo'].filter((gateway) => !offered && gateways.includes(gateway))) {
    const rps = ratios(peer, (run) => run.result.perSecond);
    const target = throughputTarget(peer, op, keys);
    figures.push({
      figure: `our router's throughput / ${PEER_NAME[peer]}`,
      value: median(rps),
      unit: '×',
      ratio: true,
      ...(target !== undefined ? { target, comparison: '>=' } : {}),
      note: range(rps, 2),
    });
  }
  if (gateways.includes('hive') && op === 'cross' && keys.startsWith('distinct')) {
    // Issue 32's p99 target is "at the same load": the open-loop runs at one offered rate for
    // both. The closed-loop runs (the same 50 clients) are reported beside it, without a target:
    // there the faster gateway is also the more loaded one.
    const p99 = ratios('hive', (run) => run.result.p99Ms);
    figures.push({
      figure: `our router's p99 / Hive Gateway's${offered ? '' : ', same 50 clients'}`,
      value: median(p99),
      unit: '×',
      ratio: true,
      ...(offered ? { target: 0.5, comparison: '<=' as const } : {}),
      note: range(p99, 2),
    });
  }
  if (offered) return figures;
  if (gateways.includes('direct')) {
    const share = ratios('direct', (run) => run.result.perSecond).map((ratio) => 100 * ratio);
    figures.push({
      figure: `our router's throughput, share of the direct subgraph (split)`,
      value: median(share),
      unit: '%',
      ratio: true,
      ...(keys === 'distinct' ? { target: 90, comparison: '>=' } : {}),
      note: range(share, 0),
    });
  }
  const cpu = of('router').map((run) => run.cpuMsPerRequest);
  const peersCpu = gateways
    .filter((gateway) => gateway !== 'router' && gateway !== 'direct')
    .map((gateway) => `${gateway} ${median(of(gateway).map((run) => run.cpuMsPerRequest)).toFixed(2)} ms`)
    .join(', ');
  figures.push({
    figure: 'router CPU per request',
    value: median(cpu),
    unit: 'ms',
    ...(keys === 'distinct' ? { target: op === 'single' ? 0.25 : 0.6, comparison: '<=' } : {}),
    note: `${range(cpu, 2)}; same runs: ${peersCpu}`,
  });
  if (gateways.includes('floor')) {
    // What the router's own work costs: its CPU above the bare proxy's, round by round (the bare
    // proxy answers the one-subgraph operation only). Judged on distinct keys, as the CPU target
    // above: on hot keys the fetches the router saves can put it below the proxy.
    const above = of('router').flatMap((ours) => {
      const floor = of('floor').find((run) => run.round === ours.round);
      return floor ? [ours.cpuMsPerRequest - floor.cpuMsPerRequest] : [];
    });
    figures.push({
      figure: "router CPU per request above a bare Node proxy's",
      value: median(above),
      unit: 'ms',
      ...(op === 'single' && keys === 'distinct' ? { target: 0.1, comparison: '<=' as const } : {}),
      note: `${range(above, 2)}; the bare proxy: ${spread(
        of('floor').map((run) => run.cpuMsPerRequest),
        2,
      )} ms`,
    });
  }
  return figures;
}
