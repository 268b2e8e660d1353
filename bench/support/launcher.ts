import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import type { SplitLayout } from '../../scripts/launcher/split-layout';

const ROOT = join(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface LaunchedPlatform {
  restUrl: string;
  routerUrl: string;
  adminKey: string;
  /** Signs the principal of a call made straight to a subgraph, as the router signs its own. */
  platformSecret: string;
  ports: Record<string, number>;
  /** The platform process, for memory readings (one-process layout). */
  pid?: number;
  /** The split layout's processes and the environment they share (another instance can be started beside them). */
  split?: { layout: SplitLayout; common: Record<string, string> };
  stop(): Promise<void>;
}

/**
 * The platform as `npm start` runs it, in its own process, so the load generator here does not
 * share the event loop with the servers it measures. `preload`: modules loaded into it first
 * (`-r`, after the TypeScript hook), e.g. a measuring probe. Its bus is `npm start`'s in-process
 * one even when AMQP_URL is set for the run (the cluster benchmark needs it): one process has no
 * one to share events with; a benchmark that measures RabbitMQ passes AMQP_URL in `env`.
 */
export async function launchPlatform(
  env: Record<string, string> = {},
  preload: string[] = [],
): Promise<LaunchedPlatform> {
  const ports = {
    rest: await freePort(),
    router: await freePort(),
    identity: await freePort(),
    payments: await freePort(),
    banks: await freePort(),
  };
  const platformSecret = newSecret('pls_');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      '-r',
      './scripts/register.js',
      ...preload.flatMap((module) => ['-r', module]),
      'platform/src/main.ts',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-bench-')),
        REST_PORT: String(ports.rest),
        ROUTER_PORT: String(ports.router),
        IDENTITY_PORT: String(ports.identity),
        PAYMENTS_PORT: String(ports.payments),
        BANKS_PORT: String(ports.banks),
        PLATFORM_SECRET: platformSecret,
        SANDBOX_BANKS: 'off',
        // The bench's banks and webhook receivers listen on loopback.
        PRIVATE_TARGETS: '1',
        LOG_LEVEL: 'error',
        ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
        // PostgreSQL session settings for the platform's connections: auto_explain or statement logging while diagnosing a run.
        ...(process.env.PGOPTIONS ? { PGOPTIONS: process.env.PGOPTIONS } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // The banner with the admin key is on stderr (stdout carries JSON log lines only).
  let output = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`platform did not start:\n${output}`)), 120_000);
    const take = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Admin key')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.once('exit', (code) => reject(new Error(`platform exited with ${code}:\n${output}`)));
  });
  await started;
  const adminKey = /Admin key\s+(\S+)/.exec(output)![1]!;
  return {
    restUrl: `http://127.0.0.1:${ports.rest}`,
    routerUrl: `http://127.0.0.1:${ports.router}`,
    adminKey,
    platformSecret,
    ports,
    pid: child.pid,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    },
  };
}
