import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** Below Linux's ephemeral range (32768-60999): no listen(0) or outgoing connection of another process is handed one of these. */
const FIXED_PORTS = { from: 20_000, to: 32_000 } as const;
const taken = new Set<number>();

const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A port for a service that must come back on the same port after a kill or a restart. It is
 * free now and chosen outside the ephemeral range: while the instance is away, a server another
 * process starts on port 0 (another test, a tool) cannot be given it and answer in its place.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from));
    if (taken.has(port) || !(await canListen(port))) continue;
    taken.add(port);
    return port;
  }
}

export interface ServiceSpec {
  /** Unique in a layout: `payments-2`. */
  name: string;
  /** What runs: `payments`, `router`, ... */
  service: string;
  entry: string;
  env: Record<string, string>;
  port: number;
  /** Answers 200 once the process takes requests (its /readyz). */
  readyUrl: string;
}

/**
 * One platform service as an OS process (`node -r ./scripts/register.js <entry>`), started again
 * on the same port after a kill or a stop, so whoever reaches it by address (HAProxy, a router)
 * finds it where it was.
 */
export class ServiceProcess {
  child: ChildProcess | null = null;
  private output = '';
  kills = 0;
  starts = 0;

  constructor(
    readonly spec: ServiceSpec,
    private readonly common: Record<string, string>,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns it and waits until its /readyz answers 200. */
  async start(timeoutMs = 120_000): Promise<void> {
    this.output = '';
    const child = spawn(process.execPath, ['-r', './scripts/register.js', this.spec.entry], {
      cwd: ROOT,
      env: { ...this.common, ...this.spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.child = child;
    this.starts += 1;
    await this.waitReady(timeoutMs);
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running)
        throw new Error(`${this.name} exited (${this.child?.exitCode ?? this.child?.signalCode}):\n${this.output}`);
      const ok = await fetch(this.spec.readyUrl, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${this.name} did not become ready:\n${this.output}`);
  }

  /** SIGKILL: no shutdown hook runs, leases and in-flight core calls are left as they are. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.kills += 1;
  }

  /**
   * SIGTERM, as an orchestrator stops it: the process drains (SHUTDOWN_DRAIN_SECONDS), stops and
   * exits; SIGKILL after `graceMs` (Kubernetes' terminationGracePeriodSeconds). Answers the exit
   * code (null: it had to be killed).
   */
  async terminate(graceMs = 30_000): Promise<number | null> {
    const child = this.child;
    if (!child || !this.running) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  lastOutput(): string {
    return this.output;
  }
}
