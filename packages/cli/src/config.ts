import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
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

/** This machine: the only hosts an API key may be sent to over plain http. */
const isLoopback = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || (isIPv4(hostname) && hostname.startsWith('127.'));

/**
 * Why the API key must not be sent to this base URL, or null. Plain http carries the key in clear
 * to anyone on the path, so it is for this machine only (localhost, 127.0.0.0/8, [::1]: `npm
 * start`); any other host needs https. Checked before every request that carries the key.
 */
export function baseUrlProblem(baseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return `the base URL ${baseUrl} is not a URL: pass --base-url https://<host>`;
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return null;
  if (url.protocol !== 'http:') return `the base URL ${baseUrl} is not http(s): pass --base-url https://${url.host}`;
  return `refusing to send the API key over plain http to ${url.host}: use --base-url https://${url.host}${url.pathname === '/' ? '' : url.pathname} (plain http only to localhost, 127.0.0.0/8 or [::1])`;
}
