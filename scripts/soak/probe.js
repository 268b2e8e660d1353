// The soak run's probe (docs/soak.md), loaded with `--require` through NODE_OPTIONS (with
// `--expose-gc`) into the processes a soak starts, and into no other build.
//
// - With SOAK_PROBE_DIR: every SOAK_PROBE_INTERVAL_MS (10 s) it appends one JSON line to
//   <dir>/<service>.jsonl: heap used (after a forced full GC every SOAK_PROBE_GC_INTERVAL_MS, by
//   default every line; `gc` says which lines, `forcedGcMs` how long it stopped the process), RSS,
//   the event loop's delay p99 since the last line, its CPU (% of one core) since the last line,
//   the active resources by type (process.getActiveResourcesInfo()), the open sockets (file
//   descriptors that are sockets, from /proc/self/fd), the heap by V8 space and the database
//   pool's connections in use, idle and callers waiting.
// - Always: when the soak that started this process dies (even by SIGKILL, when nothing of its
//   own runs), the probe sends its process SIGTERM within a second, so the service
//   stops as an orchestrator would stop it and no process of a soak outlives it.
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const { appendFileSync, readdirSync, readlinkSync } = require('node:fs');
const { basename, dirname, join, sep } = require('node:path');
const { clearInterval, setInterval } = require('node:timers');
const { getHeapSpaceStatistics } = require('node:v8');

/** `subgraphs/payments/src/main.ts` → payments; `router/src/main.ts` → router; `bench/support/sandbox-banks.ts` → sandbox-banks. */
function serviceName(entry) {
  const parts = entry.split(sep);
  const src = parts.lastIndexOf('src');
  if (src > 0 && basename(entry).startsWith('main.')) return parts[src - 1];
  return basename(entry).replace(/\.[cm]?[jt]s$/, '') || basename(dirname(entry));
}

function openSockets() {
  try {
    let sockets = 0;
    for (const fd of readdirSync('/proc/self/fd')) {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) sockets += 1;
      } catch {
        /* closed meanwhile */
      }
    }
    return sockets;
  } catch {
    // Not Linux: the sockets Node holds a handle for.
    return process.getActiveResourcesInfo().filter((type) => /^(TCPSocketWrap|PipeWrap|UDPWrap)$/.test(type)).length;
  }
}

// The soak's pid comes from its environment (SOAK_PARENT_PID): a process whose soak died before
// this line ran has already been re-parented, and its ppid would be no witness.
const soak = Number(process.env.SOAK_PARENT_PID) || process.ppid;
const soakAlive = () => {
  try {
    process.kill(soak, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};
const orphanWatch = setInterval(() => {
  if (soakAlive()) return;
  clearInterval(orphanWatch);
  process.kill(process.pid, 'SIGTERM');
}, 1000);
orphanWatch.unref();

/** @gateway/db's poolStats, once the process has opened a pool (a registered symbol: nothing imported). */
const poolStats = () => globalThis[Symbol.for('gateway.db.poolStats')];

const dir = process.env.SOAK_PROBE_DIR;
if (dir) {
  const file = join(dir, `${serviceName(process.argv[1] || 'node')}.jsonl`);
  const every = Number(process.env.SOAK_PROBE_INTERVAL_MS || 10000);
  // A forced full GC stops the process: 150-300 ms with a ~195 MB heap, measured in a one-process
  // soak on 2 cores. Forced every 10 s it overlapped ~3 % of the calls and so made every
  // operation's p99 (issue 52); an hour's run forces it once a minute (forcedGcSeconds, probes.ts).
  const gcEvery = Number(process.env.SOAK_PROBE_GC_INTERVAL_MS || every);
  let lastGcAt = -Infinity;
  const RESOLUTION_MS = 10;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let cpu = process.cpuUsage();
  let cpuAt = process.hrtime.bigint();
  const sample = () => {
    // This process's CPU since the last line, in % of one core (user + system).
    const cpuNow = process.cpuUsage();
    const now = process.hrtime.bigint();
    const cpuPercent = ((cpuNow.user - cpu.user + cpuNow.system - cpu.system) / Number((now - cpuAt) / 1000n)) * 100;
    cpu = cpuNow;
    cpuAt = now;
    // The delay is read before the forced GC and reset after it: the probe's own pause is not counted.
    // The histogram records the time between two of its timer's ticks, the resolution included.
    const eventLoopDelayP99Ms = delay.count > 0 ? Math.max(0, delay.percentile(99) / 1e6 - RESOLUTION_MS) : 0;
    const gcStarted = performance.now();
    const gc = typeof globalThis.gc === 'function' && gcStarted - lastGcAt >= gcEvery - every / 2;
    if (gc) {
      globalThis.gc();
      lastGcAt = gcStarted;
    }
    const forcedGcMs = gc ? performance.now() - gcStarted : 0;
    delay.reset();
    const memory = process.memoryUsage();
    const resources = {};
    const active = process.getActiveResourcesInfo();
    for (const type of active) resources[type] = (resources[type] || 0) + 1;
    const line = {
      t: Date.now(),
      pid: process.pid,
      gc,
      heapUsed: memory.heapUsed,
      forcedGcMs,
      rss: memory.rss,
      eventLoopDelayP99Ms,
      cpuPercent,
      handles: active.length,
      sockets: openSockets(),
      resources,
      // Where the heap is, by V8 space (bytes used): growth in code_space is compiled code (warm-up),
      // in old_space retained objects.
      spaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.space_used_size])),
      // The process's database pools (@gateway/db pool-stats.ts publishes them): in use, idle, callers waiting.
      pool: typeof poolStats() === 'function' ? poolStats()() : undefined,
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      /* the soak's folder is gone: the soak is over */
    }
  };
  setInterval(sample, every).unref();
}
