import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port with base, base+1 and base+9 free: the demo's sandbox banks and receiver. */
async function freePortBase(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await portFree(base)) && (await portFree(base + 1)) && (await portFree(base + 9))) return base;
  }
}

interface Started {
  child: ChildProcess;
  output: string;
  restUrl: string;
}

/** Runs `npm start`'s entry point exactly as the script does, with embedded defaults. */
async function startLauncher(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', 'packages/platform/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`launcher did not start:\n${output}`)), 90_000);
    const check = () => {
      if (output.includes('Try it:')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`launcher exited with ${code}:\n${output}`)));
  });
  const restUrl = /REST API\s+(http:\/\/\S+)/.exec(output)![1]!;
  return { child, output, restUrl };
}

async function stopLauncher(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGINT');
  await exited;
}

describe('npm start (embedded defaults)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the API with demo data, and a restart reuses it', async () => {
    const env = { DATA_DIR: dataDir, REST_PORT: '0', ROUTER_PORT: '0', SANDBOX_PORT_BASE: String(await freePortBase()), LOG_LEVEL: 'error' };
    const first = await startLauncher(env);
    let demo: any;
    try {
      expect(first.output).toMatch(/Admin key\s+adm_/);
      expect((await fetch(`${first.restUrl}/readyz`)).status).toBe(200);

      demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
      expect(demo.banks.map((b: any) => b.institution_code)).toEqual(['011', '012']);
      expect(demo.customers).toHaveLength(4);
      expect(demo.merchant.api_key).toMatch(/^mk_test_/);
      expect(demo.tpp.tpp_access_token).toMatch(/^tpk_/);
      expect(first.output).toContain(`Bearer ${demo.merchant.api_key}`);

      // Every demo customer resolves through the public API to the bank that funded them.
      for (const customer of demo.customers) {
        const response = await fetch(`${first.restUrl}/v1/identity/resolve?alias=${customer.alias}`);
        expect(await response.json()).toMatchObject({ iban: customer.iban, bank_handle: customer.bank_handle });
        const bank = demo.banks.find((b: any) => b.bank_handle === customer.bank_handle);
        const account = await fetch(`${bank.core_base_url}/accounts/${customer.iban}`, { headers: { 'x-service-internal-key': bank.internal_key } });
        expect(((await account.json()) as any).balance).toBe(customer.balance);
      }
      expect(demo.customers.filter((c: any) => c.balance > 0).map((c: any) => c.bank_handle)).toEqual(expect.arrayContaining(['oasis', 'atlas']));
    } finally {
      await stopLauncher(first);
    }

    const second = await startLauncher(env);
    try {
      const again = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
      expect(again.admin_key).toBe(demo.admin_key);
      expect(again.merchant).toEqual(demo.merchant);
      expect(again.banks.map((b: any) => b.bank_key)).toEqual(demo.banks.map((b: any) => b.bank_key));
      // The bank registered before the restart still answers with its saved key: no re-registration happened.
      const bank = await fetch(`${second.restUrl}/banks/oasis`, { headers: { 'x-service-bank-key': again.banks[0].bank_key } });
      expect(bank.status).toBe(200);
      expect(existsSync(join(dataDir, 'pglite'))).toBe(true);
    } finally {
      await stopLauncher(second);
    }
  });
});
