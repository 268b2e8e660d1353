import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `gateway login` keeps between runs: one profile, in the user's config directory. */
export interface CliConfig {
  base_url?: string;
  api_key?: string;
  /** The bank handle `trigger` pays at (its test payers: success@<bank>, …). */
  bank?: string;
  /** The secret `listen` signs forwarded events with (whsec_…), made on first use and kept. */
  forward_secret?: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:8080';

/**
 * GATEWAY_CONFIG names the file; else $XDG_CONFIG_HOME/gateway/config.json, else
 * ~/.config/gateway/config.json (as most CLIs on Linux and macOS keep theirs).
 */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.GATEWAY_CONFIG) return env.GATEWAY_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'gateway', 'config.json');
}

export async function readConfig(path: string): Promise<CliConfig> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as CliConfig;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** Written readable by the user only: the file holds an API key. */
export async function writeConfig(path: string, config: CliConfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

/** A Standard Webhooks secret: whsec_ and 32 random bytes in base64. */
export const newForwardSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Test keys only, unless the user asked for a live one in so many words (--live). */
export function keyProblem(apiKey: string, allowLive: boolean): string | null {
  if (apiKey.startsWith('mk_test_')) return null;
  if (apiKey.startsWith('mk_live_'))
    return allowLive ? null : 'that is a live key (mk_live_…): the CLI keeps test keys only, unless you pass --live';
  return 'an API key starts with mk_test_ (or mk_live_ with --live)';
}
