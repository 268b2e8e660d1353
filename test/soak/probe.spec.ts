import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const PROBE = join(__dirname, '..', '..', 'scripts', 'soak', 'probe.js');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The soak's probe (scripts/soak/probe.js), loaded through NODE_OPTIONS as the soak loads it. */
describe('soak probe', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'soak-probe-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `script` with the probe sampling into `dir` (and `env`): its pid and the lines it wrote. */
  const probed = async (script: string, env: Record<string, string>): Promise<{ pid?: number; lines: any[] }> => {
    const child = spawn(process.execPath, ['-e', script], {
      env: { ...process.env, NODE_OPTIONS: `--expose-gc --require ${PROBE}`, SOAK_PROBE_DIR: dir, ...env },
    });
    await new Promise((resolve) => child.once('exit', resolve));
    // `-e` has no entry file: the probe names the process after node's argv[1], here absent.
    const lines = readFileSync(join(dir, 'node.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    return { pid: child.pid, lines };
  };

  it('writes a line per interval: heap after a forced GC, RSS, event-loop delay, handles, sockets', async () => {
    const { pid, lines } = await probed(
      'require("node:net").createServer().listen(0); setTimeout(() => process.exit(0), 900)',
      { SOAK_PROBE_INTERVAL_MS: '200' },
    );
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      expect(line).toMatchObject({ pid, gc: true });
      expect(line.forcedGcMs).toBeGreaterThan(0);
      expect(line.heapUsed).toBeGreaterThan(1e6);
      expect(line.rss).toBeGreaterThan(line.heapUsed);
      expect(line.eventLoopDelayP99Ms).toBeGreaterThanOrEqual(0);
      expect(line.resources.TCPServerWrap).toBe(1);
      expect(line.sockets).toBeGreaterThanOrEqual(1);
      expect(line.handles).toBe(Object.values(line.resources as Record<string, number>).reduce((a, b) => a + b, 0));
      expect(line.pool).toBeUndefined(); // no database pool in this process
    }
  });

  it('forces the GC only every SOAK_PROBE_GC_INTERVAL_MS: the lines between carry the heap as found and no pause', async () => {
    const { lines } = await probed('setTimeout(() => process.exit(0), 1500)', {
      SOAK_PROBE_INTERVAL_MS: '200',
      SOAK_PROBE_GC_INTERVAL_MS: '600',
    });
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const forced = lines.filter((line) => line.gc);
    expect(lines[0].gc).toBe(true);
    expect(forced.length).toBeGreaterThanOrEqual(2);
    expect(forced.length).toBeLessThan(lines.length);
    // A forced GC every 600 ms at the earliest (a line up to half an interval early still counts):
    // never two within 500 ms, however late a busy machine runs the probe's timer.
    for (let k = 1; k < forced.length; k++) expect(forced[k].t - forced[k - 1].t).toBeGreaterThanOrEqual(450);
    for (const line of lines) {
      if (line.gc) expect(line.forcedGcMs).toBeGreaterThan(0);
      else expect(line.forcedGcMs).toBe(0);
    }
  });

  it("adds the process's database pools once it has one (@gateway/db's poolStats, published under a registered symbol)", async () => {
    const { lines } = await probed(
      'globalThis[Symbol.for("gateway.db.poolStats")] = () => ({ used: 2, free: 3, waiting: 1 }); setTimeout(() => process.exit(0), 500)',
      { SOAK_PROBE_INTERVAL_MS: '100' },
    );
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line.pool).toEqual({ used: 2, free: 3, waiting: 1 });
  });

  it('stops its process when the soak that started it is SIGKILLed', async () => {
    // A stand-in for the soak: starts a long-lived service with the probe, prints its pid, waits.
    const soak = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => process.exit(0)); setInterval(() => {}, 1000)'], { env: { ...process.env, NODE_OPTIONS: '--require ${PROBE}', SOAK_PARENT_PID: String(process.pid) }, stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = await new Promise<number>((resolve) =>
      soak.stdout!.once('data', (chunk) => resolve(Number(String(chunk).trim()))),
    );
    expect(alive(pid)).toBe(true);
    soak.kill('SIGKILL');
    for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
    expect(alive(pid)).toBe(false);
  });
});
