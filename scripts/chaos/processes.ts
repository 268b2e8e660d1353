import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A TCP proxy between the platform processes and RabbitMQ that the chaos run controls: cut() drops
 * every open connection and refuses new ones until restore(). Only this run's connections are cut.
 */
export class CuttableProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private open = true;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (!this.open) return client.destroy();
      const upstream = connect(this.targetPort, this.targetHost);
      this.sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Drops every connection through the proxy and refuses new ones; returns how many were dropped. */
  cut(): number {
    this.open = false;
    const dropped = this.sockets.size / 2;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return dropped;
  }

  restore(): void {
    this.open = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

export interface ServiceSpec {
  name: string;
  entry: string;
  env: Record<string, string>;
  healthUrl: string;
}

/** One platform service as an OS process that can be SIGKILLed and started again on the same port. */
export class ServiceProcess {
  child: ChildProcess | null = null;
  private output = '';
  kills = 0;
  starts = 0;

  constructor(
    readonly spec: ServiceSpec,
    private readonly common: Record<string, string>,
  ) {}

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
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
    await this.waitHealthy();
  }

  private async waitHealthy(): Promise<void> {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.spec.name} exited (${this.child?.exitCode ?? this.child?.signalCode}):\n${this.output}`);
      const ok = await fetch(this.spec.healthUrl, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${this.spec.name} did not become healthy:\n${this.output}`);
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

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  lastOutput(): string {
    return this.output;
  }
}

/** Sandbox bank cores in a process of their own, so their ledgers live through every platform kill. */
export async function startBanksProcess(env: Record<string, string>): Promise<{ child: ChildProcess; banks: Array<{ handle: string; institutionCode: string; url: string }> }> {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', 'bench/support/sandbox-banks.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(output.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`sandbox banks exited with ${code}`)));
  });
  return { child, banks: JSON.parse(line).banks };
}
