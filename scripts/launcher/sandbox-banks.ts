import { spawn, type ChildProcess } from 'node:child_process';
import type { DemoFile } from '@gateway/platform';
import { ROOT } from './service-process';

export interface SandboxCore {
  handle: string;
  institutionCode: string;
  url: string;
}

export interface BanksProcess {
  child: ChildProcess;
  /** What the process printed once ready: its banks, and in demo mode the seeded demo and where it is saved. */
  ready: { banks: SandboxCore[]; demo?: DemoFile; demoFile?: string };
  stop(): Promise<void>;
}

/**
 * Sandbox bank cores in a process of their own (bench/support/sandbox-banks.ts), so their ledgers
 * live through every platform kill and restart; `env` says which banks (see that file).
 */
export async function startBanksProcess(env: Record<string, string>): Promise<BanksProcess> {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', 'bench/support/sandbox-banks.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(output.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`sandbox banks exited with ${code}`)));
  });
  return {
    child,
    ready: JSON.parse(line),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    },
  };
}
