import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import { freePort, type LaunchedPlatform } from './launcher';

const ROOT = join(__dirname, '..', '..');

async function waitHealthy(url: string, child: ChildProcess, name: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not become healthy:\n${output()}`);
}

/**
 * Every service in its own process (`npm run start:<service>`), as a scaled-out deployment runs
 * them, on the PostgreSQL of DATABASE_URL.
 */
export async function launchSplitPlatform(env: Record<string, string> = {}): Promise<LaunchedPlatform> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('the split layout needs DATABASE_URL (PostgreSQL shared by the processes)');
  const platformSecret = newSecret('pls_');
  const adminKey = newSecret('adm_');
  const ports = {
    rest: await freePort(),
    router: await freePort(),
    banks: await freePort(),
    identity: await freePort(),
    payments: await freePort(),
    'open-banking': await freePort(),
  };
  const routerGraphql = `http://127.0.0.1:${ports.router}/graphql`;
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: databaseUrl,
    PLATFORM_SECRET: platformSecret,
    ADMIN_KEY: adminKey,
    LOG_LEVEL: 'error',
    ...env,
  };
  const children: ChildProcess[] = [];
  const start = async (name: string, entry: string, extra: Record<string, string>, healthUrl: string) => {
    const child = spawn(process.execPath, ['-r', './scripts/register.js', entry], { cwd: ROOT, env: { ...common, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    children.push(child);
    return { child, healthUrl, name, output: () => output };
  };
  const subgraphs = await Promise.all(
    (['banks', 'identity', 'payments', 'open-banking'] as const).map((name) =>
      start(name, `subgraphs/${name}/src/main.ts`, { PORT: String(ports[name]), ROUTER_URL: routerGraphql }, `http://127.0.0.1:${ports[name]}/healthz`),
    ),
  );
  for (const s of subgraphs) await waitHealthy(s.healthUrl, s.child, s.name, s.output);
  const router = await start(
    'router',
    'router/src/main.ts',
    {
      ROUTER_PORT: String(ports.router),
      BANKS_URL: `http://127.0.0.1:${ports.banks}/graphql`,
      IDENTITY_URL: `http://127.0.0.1:${ports.identity}/graphql`,
      PAYMENTS_URL: `http://127.0.0.1:${ports.payments}/graphql`,
      OPEN_BANKING_URL: `http://127.0.0.1:${ports['open-banking']}/graphql`,
      ...(env.RATE_LIMITS ? { RATE_LIMITS: env.RATE_LIMITS } : {}),
    },
    `http://127.0.0.1:${ports.router}/readyz`,
  );
  await waitHealthy(router.healthUrl, router.child, router.name, router.output);
  const rest = await start('rest-compat', 'rest-compat/src/main.ts', { ROUTER_URL: routerGraphql, REST_PORT: String(ports.rest) }, `http://127.0.0.1:${ports.rest}/readyz`);
  await waitHealthy(rest.healthUrl, rest.child, rest.name, rest.output);
  return {
    restUrl: `http://127.0.0.1:${ports.rest}`,
    routerUrl: `http://127.0.0.1:${ports.router}`,
    adminKey,
    ports,
    async stop() {
      await Promise.all(
        children.map((child) => {
          if (child.exitCode !== null) return undefined;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGINT');
          return exited;
        }),
      );
    },
  };
}
