import { parseArgs } from 'node:util';
import { GatewayApiError, GatewayError } from '@gateway/sdk';
import { listEvents, resendEvent } from './commands/events';
import { listen } from './commands/listen';
import { login } from './commands/login';
import { getSession, listSessions } from './commands/sessions';
import { trigger, TRIGGERS } from './commands/trigger';
import { createContext, UsageError } from './context';
import { processIo, type CliIo } from './io';

export const HELP = `gateway: the payment gateway from your terminal (test mode by default)

Usage:
  gateway login --api-key mk_test_… [--bank <handle>] [--base-url URL] [--live]
  gateway listen --forward-to URL [--events payment.*,refund.completed]
  gateway trigger <event> [--bank <handle>] [--payee <alias>] [--amount 1000] [--currency LYD]
      events: ${Object.keys(TRIGGERS).join(', ')}
  gateway events list [--type payment.completed] [--limit 20]
  gateway events resend evt_… (--endpoint we_… | --forward-to URL)
  gateway sessions list [--status COMPLETED] [--limit 20]
  gateway sessions get ops_…

Every command: --json (one JSON document per line), --api-key, --base-url.
The profile is kept in $GATEWAY_CONFIG, else $XDG_CONFIG_HOME/gateway/config.json, else ~/.config/gateway/config.json.`;

const OPTIONS = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean' },
  live: { type: 'boolean' },
  bank: { type: 'string' },
  payee: { type: 'string' },
  amount: { type: 'string' },
  currency: { type: 'string' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  'poll-ms': { type: 'string' },
  endpoint: { type: 'string' },
  type: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs one command line; answers the exit code (0 done, 1 refused by the API or failed, 2 usage). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  try {
    const { values: flags, positionals } = parseArgs({
      args: argv,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    const [command, sub, arg] = positionals;
    if (flags.help || !command) {
      io.out(HELP);
      return command || flags.help ? 0 : 2;
    }
    const context = await createContext(io, flags);
    switch (`${command}${sub && ['events', 'sessions'].includes(command) ? ` ${sub}` : ''}`) {
      case 'login':
        return await login(context, flags);
      case 'listen':
        return await listen(context, flags);
      case 'trigger':
        return await trigger(context, sub, flags);
      case 'events list':
        return await listEvents(context, flags);
      case 'events resend':
        return await resendEvent(context, arg, flags);
      case 'sessions list':
        return await listSessions(context, flags);
      case 'sessions get':
        return await getSession(context, arg);
      default:
        throw new UsageError(`unknown command: ${positionals.join(' ')} (gateway --help lists them)`);
    }
  } catch (error) {
    return report(io, error);
  }
}

function report(io: CliIo, error: unknown): number {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    io.err(`gateway: ${(error as Error).message}`);
    return 2;
  }
  if (error instanceof GatewayApiError) {
    io.err(`gateway: ${error.status} ${error.code}: ${error.detail ?? error.message} (request ${error.requestId})`);
    return 1;
  }
  if (error instanceof GatewayError) {
    io.err(`gateway: ${error.message}`);
    return 1;
  }
  throw error;
}

/** The bin's entry: Ctrl-C ends `listen` cleanly. */
export async function main(argv: string[]): Promise<number> {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  return run(argv, processIo(stop.signal));
}
