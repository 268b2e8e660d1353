import { GatewayClient } from '@gateway/sdk';
import { baseUrlProblem, configPath, DEFAULT_BASE_URL, keyProblem, readConfig, type CliConfig } from './config';
import type { CliIo } from './io';

/** A usage mistake: the message is for the user, the exit code 2. */
export class UsageError extends Error {}

/** What every command gets: the profile, the flags that override it, and a client for the API. */
export interface CliContext {
  io: CliIo;
  json: boolean;
  configFile: string;
  config: CliConfig;
  baseUrl: string;
  /** The client, with the key of the profile (or --api-key / GATEWAY_API_KEY). */
  gateway(): GatewayClient;
  apiKey(): string;
}

export interface GlobalFlags {
  'api-key'?: string;
  'base-url'?: string;
  json?: boolean;
  live?: boolean;
}

export async function createContext(io: CliIo, flags: GlobalFlags): Promise<CliContext> {
  const configFile = configPath(io.env);
  const config = await readConfig(configFile);
  // GATEWAY_URL, as the example app and the README name it; GATEWAY_BASE_URL, the CLI's first name, still works.
  const fromEnv = io.env.GATEWAY_URL ?? io.env.GATEWAY_BASE_URL;
  const baseUrl = (flags['base-url'] ?? fromEnv ?? config.base_url ?? DEFAULT_BASE_URL).replace(/\/$/, '');
  const apiKey = (): string => {
    const key = flags['api-key'] ?? io.env.GATEWAY_API_KEY ?? config.api_key;
    if (!key) throw new UsageError('no API key: run `gateway login --api-key mk_test_…` first, or pass --api-key');
    const problem = keyProblem(key, Boolean(flags.live) || key === config.api_key) ?? baseUrlProblem(baseUrl);
    if (problem) throw new UsageError(problem);
    return key;
  };
  let client: GatewayClient | undefined;
  return {
    io,
    json: Boolean(flags.json),
    configFile,
    config,
    baseUrl,
    apiKey,
    gateway: () => (client ??= new GatewayClient({ baseUrl, apiKey: apiKey() })),
  };
}
