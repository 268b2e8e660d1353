import { newForwardSecret, writeConfig } from '../config';
import { UsageError, type CliContext } from '../context';
import { forwardEvent, type ListedEvent } from '../forward';

export interface ListenFlags {
  'forward-to'?: string;
  /** Comma-separated event names, `*` suffix allowed (payment.*); all when absent. */
  events?: string;
  /** How often the events API is asked, in ms. */
  'poll-ms'?: string;
}

/**
 * Events can be committed a little after their created_at (a transaction still open when a later
 * one committed): each poll looks this far back, and the ids already forwarded are skipped.
 */
const LOOK_BACK_MS = 10_000;
const DEFAULT_POLL_MS = 1_000;

/** The forwarding secret: made once and kept in the profile, so the local app's config stays valid. */
async function forwardSecret(context: CliContext): Promise<string> {
  if (context.config.forward_secret) return context.config.forward_secret;
  const secret = newForwardSecret();
  context.config.forward_secret = secret;
  await writeConfig(context.configFile, context.config);
  return secret;
}

export function eventFilter(names: string | undefined): (kind: string) => boolean {
  const patterns = (names ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (patterns.length === 0 || patterns.includes('*')) return () => true;
  return (kind) =>
    patterns.some((pattern) => (pattern.endsWith('.*') ? kind.startsWith(pattern.slice(0, -1)) : kind === pattern));
}

/** Oldest first; a session's events by their sequence when two share a timestamp. */
const chronological = (a: ListedEvent, b: ListedEvent): number =>
  a.created_at.localeCompare(b.created_at) || (a.sequence ?? 0) - (b.sequence ?? 0) || a.id.localeCompare(b.id);

/**
 * `gateway listen --forward-to http://localhost:3000/webhooks`: follows the caller's events over the
 * events API (GET /events from the moment it starts) and POSTs each, in order, signed with the
 * secret it prints, to the local URL, printing each delivery's answer. Runs until Ctrl-C.
 */
export async function listen(context: CliContext, flags: ListenFlags): Promise<number> {
  const target = flags['forward-to'];
  if (!target || !URL.canParse(target))
    throw new UsageError('listen needs --forward-to <url>, e.g. http://localhost:3000/webhooks');
  const pollMs = flags['poll-ms'] ? Number(flags['poll-ms']) : DEFAULT_POLL_MS;
  if (!Number.isInteger(pollMs) || pollMs < 100) throw new UsageError('--poll-ms: an integer of at least 100');
  const wanted = eventFilter(flags.events);
  const gateway = context.gateway();
  const secret = await forwardSecret(context);
  const { io, json } = context;
  const signal = io.signal;
  if (json) io.out(JSON.stringify({ ready: true, forward_to: target, secret }));
  else
    io.out(
      `Ready! Forwarding events to ${target}\nYour webhook signing secret is ${secret} (set it as your app's webhook secret; ^C to quit)`,
    );

  const forwarded = new Map<string, number>();
  let since = Date.now() - 1_000;
  while (!signal?.aborted) {
    const fresh: ListedEvent[] = [];
    try {
      const from = new Date(since - LOOK_BACK_MS).toISOString();
      for await (const event of gateway.paginate('/events', { params: { query: { from, limit: 100 } } }))
        if (!forwarded.has(event.id)) fresh.push(event as ListedEvent);
    } catch (error) {
      if (signal?.aborted) break;
      io.err(`could not read events (${(error as Error).message}); trying again`);
    }
    fresh.sort(chronological);
    for (const event of fresh) {
      forwarded.set(event.id, Date.parse(event.created_at));
      since = Math.max(since, Date.parse(event.created_at));
      if (!wanted(event.event)) continue;
      if (!json) io.out(`${new Date().toISOString()}  --> ${event.event} [${event.id}]`);
      const result = await forwardEvent(target, event, secret);
      if (json) io.out(JSON.stringify({ event_id: event.id, event: event.event, ...result }));
      else
        io.out(
          `${new Date().toISOString()}  <-- [${result.status ?? result.error}] POST ${target} [${event.id}] ${result.durationMs} ms`,
        );
    }
    // Forget what is older than the look-back: it can no longer come back in a poll.
    for (const [id, at] of forwarded) if (at < since - 2 * LOOK_BACK_MS) forwarded.delete(id);
    await sleep(pollMs, signal);
  }
  return 0;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
