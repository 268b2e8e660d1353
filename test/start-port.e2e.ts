import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortBase } from './support/free-ports';

const ROOT = join(__dirname, '..');

/** Runs `npm start`'s entry point as the script does, until it exits by itself: its exit code and all it printed. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', 'platform/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`launcher did not exit:\n${stdout}${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Another program on a port: the platform's check must see it taken. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/**
 * `npm start` on a busy port (issue 47): it used to migrate and seed for half a minute, then die
 * with EADDRINUSE's stack. Now it stops before opening the database, in one line that names the
 * variable to set.
 */
describe('npm start on a busy port', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-start-port-'));
  const held: Server[] = [];
  afterAll(async () => {
    for (const server of held) await new Promise((resolve) => server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(['REST_PORT', 'ROUTER_PORT'])(
    'a %s in use stops the start at once, naming the variable, before the database is opened',
    async (variable) => {
      const { port, server } = await holdPort();
      held.push(server);
      const env: Record<string, string> = {
        DATA_DIR: dataDir,
        REST_PORT: '0',
        ROUTER_PORT: '0',
        SANDBOX_PORT_BASE: String(await freePortBase()),
        [variable]: String(port),
      };
      const result = await runToExit(env);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`port ${port} is in use: set ${variable} to another port (0 picks a free one)`);
      // Nothing was started: no progress line (database, migrations), no stack, no data written.
      expect(result.stdout).toBe('');
      expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
    },
    90_000,
  );

  it('the same port for both is refused the same way', async () => {
    const port = await freePortBase();
    const result = await runToExit({
      DATA_DIR: dataDir,
      REST_PORT: String(port),
      ROUTER_PORT: String(port),
      SANDBOX_PORT_BASE: String(await freePortBase()),
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `REST_PORT and ROUTER_PORT are both ${port}: set ROUTER_PORT to another port (0 picks a free one)`,
    );
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
  }, 90_000);
});
