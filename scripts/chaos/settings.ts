import { parseArgs } from 'node:util';

/**
 * The run's settings, read once from the environment and the command line (docs/chaos.md lists
 * them). A bad value stops the run before anything starts.
 */
export const env = (name: string, fallback: number): number =>
  process.env[name] ? Number(process.env[name]) : fallback;
export const PAYMENTS = env('CHAOS_PAYMENTS', 1000);
export const SECONDS = env('CHAOS_SECONDS', 300);
export const QUIET_SECONDS = env('CHAOS_QUIET_SECONDS', 240);
export const CONCURRENCY = env('CHAOS_CONCURRENCY', 12);
export const KILL_EVERY_SECONDS = env('CHAOS_KILL_EVERY_SECONDS', 12);
/** `--replicas N` (N ≥ 2): the cluster layout (HAProxy in front of N instances of every service, scripts/cluster). */
export const REPLICAS = Number(parseArgs({ options: { replicas: { type: 'string', default: '1' } } }).values.replicas);
if (!Number.isInteger(REPLICAS) || REPLICAS < 1) throw new Error('--replicas: a whole number, 1 or more');
/** The services the kills pick from: payments four times as often as each other one, unless CHAOS_KILL_KINDS names them. */
const KILLABLE = [
  'payments',
  'payments',
  'payments',
  'payments',
  'rest-compat',
  'router',
  'open-banking',
  'identity',
  'banks',
] as const;
type Killable = (typeof KILLABLE)[number];
const list = (name: string): string[] | undefined =>
  process.env[name]
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
export const KILL_KINDS: readonly Killable[] = (() => {
  const named = list('CHAOS_KILL_KINDS');
  if (!named) return KILLABLE;
  const unknown = named.filter((name) => !(KILLABLE as readonly string[]).includes(name));
  if (unknown.length || !named.length)
    throw new Error(
      `CHAOS_KILL_KINDS: services among ${[...new Set(KILLABLE)].join(', ')} (got ${unknown.join(', ') || 'none'})`,
    );
  return named as Killable[];
})();
/**
 * The signals the kills pick from. By default SIGKILL only without replicas (a SIGTERMed single
 * instance is just a restart), half and half with them. `CHAOS_SIGNALS=KILL` collects takeovers:
 * after SIGTERM the draining owner usually finishes what it holds, and nothing is taken over.
 */
export const SIGNALS: ReadonlyArray<'SIGKILL' | 'SIGTERM'> = (() => {
  const named = list('CHAOS_SIGNALS');
  if (!named) return REPLICAS > 1 ? ['SIGTERM', 'SIGKILL'] : ['SIGKILL'];
  const signals = named.map((name) => `SIG${name.toUpperCase().replace(/^SIG/, '')}`);
  if (!signals.length || signals.some((signal) => signal !== 'SIGKILL' && signal !== 'SIGTERM'))
    throw new Error(`CHAOS_SIGNALS: KILL, TERM or KILL,TERM (got ${named.join(',')})`);
  return signals as Array<'SIGKILL' | 'SIGTERM'>;
})();
/**
 * Which instance of the chosen service a kill takes: `random`, or `longest-up` (the one whose last
 * kill is oldest). A just-restarted payments instance holds little (the other one took the work
 * while it was away), so random kills meet the live owner's payments more often than the victim's.
 */
export const KILL_PICK = process.env.CHAOS_KILL_PICK ?? 'random';
if (KILL_PICK !== 'random' && KILL_PICK !== 'longest-up')
  throw new Error(`CHAOS_KILL_PICK: random or longest-up (got ${KILL_PICK})`);
