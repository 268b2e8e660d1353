import { readdirSync, readFileSync } from 'node:fs';

/** Which part of the system a process is, from its command line (null: not ours to count). */
function groupOf(pid: string): string | null {
  try {
    if (Number(pid) === process.pid) return 'load generator';
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (comm === 'postgres' || comm === 'haproxy') return comm;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (command.includes('sandbox-banks.ts')) return 'bank cores';
    if (command.includes('bare-session-server.ts')) return 'session floor';
    if (command.includes('platform/src/main.ts')) return 'gateway';
    // One process per service: each one named, so the busiest shows.
    const service = /(?:subgraphs\/([\w-]+)|(router)|(rest-compat))\/src\/main\.ts/.exec(command);
    return service ? (service[1] ?? service[2] ?? service[3])! : null;
  } catch {
    return null;
  }
}

/** A reading: CPU seconds used so far by each of our processes, with its group. */
export type CpuReading = Record<string, { group: string; seconds: number }>;

/** CPU seconds used so far by each process of a group (utime + stime from /proc), by pid. */
export function cpuSeconds(): CpuReading {
  const out: CpuReading = {};
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const group = groupOf(pid);
    if (!group) continue;
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out[pid] = { group, seconds: (Number(fields[11]) + Number(fields[12])) / 100 };
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * Cores used per group between two readings over `seconds`, busiest first, idle groups left out.
 * Per process: one that ended in between (a PostgreSQL backend, another run's server on this
 * shared machine) must not subtract its whole life's CPU from its group; one that started counts
 * from zero.
 */
export function coresUsed(before: CpuReading, after: CpuReading, seconds: number): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [pid, { group, seconds: now }] of Object.entries(after))
    used[group] = (used[group] ?? 0) + (now - (before[pid]?.seconds ?? 0)) / seconds;
  const usage = Object.entries(used).filter(([, cores]) => cores >= 0.005);
  return Object.fromEntries(usage.sort((a, b) => b[1] - a[1]));
}

export const formatCores = (usage: Record<string, number>): string =>
  Object.entries(usage)
    .map(([who, cores]) => `${who} ${cores.toFixed(2)}`)
    .join(', ');

/**
 * CPU seconds one process has used so far (utime + stime), NaN once it is gone: for a process this
 * benchmark started itself, whatever its command line (the peers' gateways), and only it (the
 * groups above would also count another run's router on a shared machine).
 */
export function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
