import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Point } from './verdicts';

/** One line the probe (probe.js) wrote. */
export interface ProbeLine {
  t: number;
  pid: number;
  /** Whether a full GC was forced before this line: its heapUsed is the heap after GC. */
  gc: boolean;
  heapUsed: number;
  /** How long the forced GC stopped the process (absent from older probes). */
  forcedGcMs?: number;
  rss: number;
  eventLoopDelayP99Ms: number;
  /** % of one core since the previous line (absent from older probes). */
  cpuPercent?: number;
  handles: number;
  sockets: number;
  resources: Record<string, number>;
  /** Bytes used by V8 heap space (old_space, code_space, ...). */
  spaces?: Record<string, number>;
  /** The process's database pools (absent where it has none). */
  pool?: { used: number; free: number; waiting: number };
}

/** Every process's lines so far, by service (`platform`, `payments`, `router`, ...). */
export function readProbes(dir: string): Map<string, ProbeLine[]> {
  const lines = new Map<string, ProbeLine[]>();
  if (!existsSync(dir)) return lines;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    const parsed: ProbeLine[] = [];
    for (const text of readFileSync(join(dir, file), 'utf8').split('\n'))
      if (text.trim())
        try {
          parsed.push(JSON.parse(text));
        } catch {
          /* a line being written */
        }
    lines.set(file.replace(/\.jsonl$/, ''), parsed);
  }
  return lines;
}

const MB = 1e6;

/**
 * V8's compiled code and bytecode: the JIT's output, which grows for minutes while more functions
 * are compiled and optimized, is bounded by the program's size, and is flushed when unused (issue
 * 52: in a one-process soak these spaces grew 12.4 -> 13.5 MB and 10.5 -> 11.6 MB over the first
 * ten minutes, then stayed; two heap snapshots four minutes apart differed by 1.06 MB of objects,
 * all code and its metadata). The heap verdict judges what the program keeps (the heap without
 * them); these are charted apart, bounded.
 */
const CODE_SPACES = ['code_space', 'code_large_object_space', 'trusted_space', 'trusted_large_object_space'];
export const compiledCode = (l: ProbeLine) => CODE_SPACES.reduce((sum, space) => sum + (l.spaces?.[space] ?? 0), 0);

/** A process's series (t in seconds since the load began; lines outside the load left out). */
export function probePoints(lines: readonly ProbeLine[], begin: number, duration: number) {
  const within = lines.filter((l) => l.t >= begin && l.t <= begin + duration * 1000 + 1000);
  const series = (value: (l: ProbeLine) => number, lines = within): Point[] =>
    lines.map((l) => ({ t: (l.t - begin) / 1000, v: value(l) }));
  const collected = within.filter((l) => l.gc);
  return {
    heap: series((l) => (l.heapUsed - compiledCode(l)) / MB, collected),
    forcedGc: collected.some((l) => l.forcedGcMs !== undefined) ? series((l) => l.forcedGcMs ?? 0, collected) : [],
    code: collected.some((l) => l.spaces) ? series((l) => compiledCode(l) / MB, collected) : [],
    rss: series((l) => l.rss / MB),
    eventLoopDelay: series((l) => l.eventLoopDelayP99Ms),
    cpu: series((l) => l.cpuPercent ?? 0),
    handles: series((l) => l.handles),
    sockets: series((l) => l.sockets),
    poolConnections: within.some((l) => l.pool) ? series((l) => (l.pool ? l.pool.used + l.pool.free : 0)) : [],
    poolWaiting: within.some((l) => l.pool) ? series((l) => l.pool?.waiting ?? 0) : [],
    pids: new Set(within.map((l) => l.pid)),
  };
}

/**
 * Seconds between two forced full GCs, the heap's samples: about sixty a run, at most one a minute,
 * never more often than the probe's lines. A forced GC stops a process 150-300 ms (probe.js); once a
 * minute it overlaps ~0.4 % of the calls, below the p99 the verdicts judge.
 */
export const forcedGcSeconds = (minutes: number, sampleSeconds: number): number =>
  Math.max(sampleSeconds, Math.min(60, minutes));
