import { readdirSync, readFileSync } from 'node:fs';

/** Which part of the system a process is, from its command line (null: not ours to count). */
function groupOf(pid: string): string | null {
  try {
    if (Number(pid) === process.pid) return 'load generator';
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') return 'postgres';
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (command.includes('sandbox-banks.ts')) return 'bank cores';
    if (command.includes('platform/src/main.ts')) return 'gateway';
    // One process per service: each one named, so the busiest shows.
    const service = /(?:subgraphs\/([\w-]+)|(router)|(rest-compat))\/src\/main\.ts/.exec(command);
    return service ? (service[1] ?? service[2] ?? service[3])! : null;
  } catch {
    return null;
  }
}

/** CPU seconds used so far by each group of processes (utime + stime from /proc). */
export function cpuSeconds(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const group = groupOf(pid);
    if (!group) continue;
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out[group] = (out[group] ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** Cores used per group between two readings over `seconds`, busiest first, idle groups left out. */
export function coresUsed(before: Record<string, number>, after: Record<string, number>, seconds: number): Record<string, number> {
  const usage = Object.keys(after)
    .map((key) => [key, (after[key]! - (before[key] ?? 0)) / seconds] as const)
    .filter(([, cores]) => cores >= 0.005);
  return Object.fromEntries(usage.sort((a, b) => b[1] - a[1]));
}

export const formatCores = (usage: Record<string, number>): string =>
  Object.entries(usage)
    .map(([who, cores]) => `${who} ${cores.toFixed(2)}`)
    .join(', ');
