import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortBase } from './support/free-ports';

const ROOT = join(__dirname, '..');

interface Started {
  child: ChildProcess;
  output: string;
  restUrl: string;
}

/** Runs `npm start`'s entry point exactly as the script does, with embedded defaults. */
function spawnLauncher(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', 'platform/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launched.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

/** Every launcher this file started: killed in afterAll whatever happened. */
const launched: ChildProcess[] = [];

async function startLauncher(env: Record<string, string>): Promise<Started> {
  const { child, output } = spawnLauncher(env);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`launcher did not start:\n${output()}`)), 90_000);
    const check = () => {
      if (output().includes('Try it:')) {
        clearTimeout(timer);
        resolve();
      }
    };
    // The banner is on stderr (stdout carries JSON log lines only).
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`launcher exited with ${code}:\n${output()}`)));
  });
  const restUrl = /REST API\s+(http:\/\/\S+)/.exec(output())![1]!;
  return {
    child,
    get output() {
      return output();
    },
    restUrl,
  };
}

/** The exit code and everything printed by a launcher expected to stop by itself. */
async function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnLauncher(env);
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`launcher did not exit:\n${output()}`)), 60_000);
    child.once('exit', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return { code, output: output() };
}

async function stopLauncher(started: Started, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
  started.child.kill(signal);
  return exited;
}

describe('npm start (embedded defaults)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-start-'));
  afterAll(async () => {
    for (const child of launched) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  let env: Record<string, string>;
  let demo: any;
  let sessionId: string;

  it('serves the API with demo data, and a restart reuses it', async () => {
    env = {
      DATA_DIR: dataDir,
      REST_PORT: '0',
      ROUTER_PORT: '0',
      SANDBOX_PORT_BASE: String(await freePortBase()),
      LOG_LEVEL: 'error',
    };
    const first = await startLauncher(env);
    try {
      expect(first.output).toMatch(/Admin key\s+adm_/);
      expect((await fetch(`${first.restUrl}/readyz`)).status).toBe(200);

      demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
      expect(demo.seed_complete).toBe(true);
      expect(demo.banks.map((b: any) => b.institution_code)).toEqual(['011', '012']);
      expect(demo.customers).toHaveLength(4);
      expect(demo.merchant.api_key).toMatch(/^mk_test_/);
      expect(demo.tpp.tpp_access_token).toMatch(/^tpk_/);
      expect(demo.fapi2_tpp.tpp_id).toMatch(/^tpp_/);
      expect(first.output).toContain(`fapi2 tpp   ${demo.fapi2_tpp.tpp_id}`);
      expect(first.output).not.toContain(demo.fapi2_tpp.private_jwk.d);
      expect(first.output).toContain(`Bearer ${demo.merchant.api_key}`);
      expect(first.output).toContain(`Demo (${join(dataDir, 'demo.json')}):`);
      // A newcomer opening the address in a browser: what runs, the links, where the demo keys are.
      const landing = await fetch(`${first.restUrl}/`, { headers: { accept: 'text/html' } });
      expect(landing.status).toBe(200);
      expect(landing.headers.get('content-security-policy')).toContain("default-src 'none'");
      const page = await landing.text();
      expect(page).toContain('Payment gateway is running');
      expect(page).toContain(`embedded PGlite in ${join(dataDir, 'pglite')}`);
      expect(page).toContain(join(dataDir, 'demo.json'));
      for (const link of ['/docs', '/graphql', '/dashboard', '/operator', '/openapi.json', '/readyz'])
        expect(page).toContain(`href="${link}"`);

      // Every demo customer resolves through the public API to the bank that funded them.
      for (const customer of demo.customers) {
        const response = await fetch(`${first.restUrl}/v1/identity/resolve?alias=${customer.alias}`);
        expect(await response.json()).toMatchObject({ iban: customer.iban, bank_handle: customer.bank_handle });
        const bank = demo.banks.find((b: any) => b.bank_handle === customer.bank_handle);
        const account = await fetch(`${bank.core_base_url}/accounts/${customer.iban}`, {
          headers: { 'x-service-internal-key': bank.internal_key },
        });
        expect(((await account.json()) as any).balance).toBe(customer.balance);
      }
      expect(demo.customers.filter((c: any) => c.balance > 0).map((c: any) => c.bank_handle)).toEqual(
        expect.arrayContaining(['oasis', 'atlas']),
      );
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
      const bank = await fetch(`${second.restUrl}/banks/oasis`, {
        headers: { 'x-service-bank-key': again.banks[0].bank_key },
      });
      expect(bank.status).toBe(200);
      expect(existsSync(join(dataDir, 'pglite'))).toBe(true);

      // Data for the tests below: a payment session created before the stops and restarts.
      const created = await fetch(`${second.restUrl}/payments/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: 12500,
          currency: 'LYD',
          destination: { type: 'alias', value: 'layla' },
          reference: 'order-kept',
        }),
      });
      expect(created.status).toBe(201);
      const session = (await created.json()) as any;
      sessionId = session.session_id;
      // The link opens on whatever port the platform took (REST_PORT=0 here; PUBLIC_BASE_URL unset).
      expect(session.checkout_url).toBe(`${second.restUrl.replace('127.0.0.1', 'localhost')}/pay/${sessionId}`);
      expect((await fetch(session.checkout_url, { headers: { accept: 'text/html' } })).status).toBe(200);

      // A second `npm start` on the same data directory stops at once, saying why; the first keeps serving.
      const refused = await runToExit({ ...env, SANDBOX_PORT_BASE: String(await freePortBase()) });
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(
        `The embedded database in ${join(dataDir, 'pglite')} is in use by another platform (process ${second.child.pid})`,
      );
      expect(refused.output).not.toMatch(/Aborted|at .*\.ts:\d+/);
      expect((await fetch(`${second.restUrl}/healthz`)).status).toBe(200);
      expect(
        (
          await fetch(`${second.restUrl}/payments/sessions/${sessionId}`, {
            headers: { authorization: `Bearer ${demo.merchant.api_key}` },
          })
        ).status,
      ).toBe(200);

      // SIGTERM, and a second signal while it stops (Ctrl-C twice): the second is only reported,
      // PGlite and its lock are closed, and the process exits 0. (Two SIGTERMs sent at once would
      // merge into one: the kernel keeps one pending signal of a kind.)
      const exited = new Promise<number | null>((resolve) => second.child.once('exit', resolve));
      second.child.kill('SIGTERM');
      second.child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(second.output).toMatch(/(SIGINT|SIGTERM) again: still stopping/);
      expect(existsSync(join(dataDir, 'pglite', 'gateway.lock'))).toBe(false);
    } finally {
      await stopLauncher(second);
    }
  }, 240_000);

  it('starts again after a kill -9 (the stale lock is taken over) and serves the data created before', async () => {
    const third = await startLauncher(env);
    const readSession = (started: Started) =>
      fetch(`${started.restUrl}/payments/sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${demo.merchant.api_key}` },
      });
    try {
      expect((await readSession(third)).status).toBe(200);
    } finally {
      await stopLauncher(third, 'SIGKILL');
    }
    expect(JSON.parse(readFileSync(join(dataDir, 'pglite', 'gateway.lock'), 'utf8')).pid).toBe(third.child.pid);

    const fourth = await startLauncher(env);
    try {
      expect((await fetch(`${fourth.restUrl}/readyz`)).status).toBe(200);
      const session = await readSession(fourth);
      expect(session.status).toBe(200);
      expect(((await session.json()) as any).session_id).toBe(sessionId);
    } finally {
      expect(await stopLauncher(fourth, 'SIGTERM')).toBe(0);
    }
  }, 240_000);
});
