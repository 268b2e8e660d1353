import { GatewayClient } from '@gateway/sdk';
import { baseUrlProblem, keyProblem, writeConfig } from '../config';
import { UsageError, type CliContext } from '../context';
import { print } from '../io';

/**
 * `gateway login --api-key mk_test_… [--bank <handle>] [--base-url URL] [--live]`: checks the key
 * against the platform (one list call) and keeps it in the profile, readable by the user only.
 */
export async function login(
  context: CliContext,
  flags: { 'api-key'?: string; bank?: string; live?: boolean },
): Promise<number> {
  const apiKey = flags['api-key'] ?? context.io.env.GATEWAY_API_KEY;
  if (!apiKey) throw new UsageError('login needs --api-key mk_test_… (the test key the operator gave you)');
  const problem = keyProblem(apiKey, Boolean(flags.live)) ?? baseUrlProblem(context.baseUrl);
  if (problem) throw new UsageError(problem);
  // A wrong key or base URL is told now, not at the first real command.
  await new GatewayClient({ baseUrl: context.baseUrl, apiKey }).get('/payments/sessions', {
    params: { query: { limit: 1 } },
  });
  const config = {
    ...context.config,
    base_url: context.baseUrl,
    api_key: apiKey,
    ...(flags.bank ? { bank: flags.bank } : {}),
  };
  await writeConfig(context.configFile, config);
  const mode = apiKey.startsWith('mk_live_') ? 'live' : 'test';
  print(
    context.io,
    context.json,
    { base_url: context.baseUrl, mode, bank: config.bank ?? null, config: context.configFile },
    () =>
      [
        `Logged in to ${context.baseUrl} with a ${mode} key.`,
        `Saved to ${context.configFile} (readable by you only).`,
        ...(config.bank
          ? [`trigger pays at bank ${config.bank}.`]
          : ['Pass --bank <handle> to choose where `trigger` pays.']),
      ].join('\n'),
  );
  return 0;
}
