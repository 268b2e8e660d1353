import { readdirSync, readFileSync } from 'node:fs';

import type { Knex } from 'knex';

/** The application_name the bench's sandbox bank cores connect with: their PostgreSQL backends are counted apart. */
export const BANK_CORES_APPLICATION = 'bench-bank-cores';
/** The group of the PostgreSQL backends that serve the bank cores (their ledgers are in the same server). */
export const POSTGRES_FOR_BANK_CORES = 'postgres for bank cores';

/** PostgreSQL backends by pid that belong to a group of their own (the bank cores'), for cpuSeconds. */
export type BackendGroups = Record<string, string>;

/**
 * The backends of the bench's bank cores, by pid: so that PostgreSQL's CPU in a payment phase is
 * the platform's statements', not the sandbox ledgers' (issue 53 item 5 counts the platform's).
 */
export async function backendGroups(knex: Knex): Promise<BackendGroups> {
  const { rows } = await knex.raw<{ rows: Array<{ pid: number }> }>(
    'select pid from pg_stat_activity where application_name = ?',
    [BANK_CORES_APPLICATION],
  );
  return Object.fromEntries(rows.map(({ pid }) => [String(pid), POSTGRES_FOR_BANK_CORES]));
}

/** `url` with the application_name its connections report (pg reads it from the connection string). */
export function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.toString();
}

/** Which part of the system a process is, from its command line (null: not ours to count). */
function groupOf(pid: string, backends: BackendGroups): string | null {
  try {
    if (Number(pid) === process.pid) return 'load generator';
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (comm === 'postgres') return backends[pid] ?? comm;
    if (comm === 'haproxy') return comm;
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

/** CPU seconds used so far by each process of a group (utime + stime from /proc), by pid; `backends` named apart. */
export function cpuSeconds(backends: BackendGroups = {}): CpuReading {
  const out: CpuReading = {};
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const group = groupOf(pid, backends);
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
