import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { createClient, type Client } from 'graphql-ws';
import { subscribe, type LiveState } from '../../dashboard/client/api';

/** graphql-ws's Forbidden: the router closes a socket with it when its credential no longer holds. */
const REFUSED = 4403;

let refusalsIgnored = false;

/**
 * A socket refused at connection_init (a session revoked before it opened) also rejects one of
 * graphql-ws's internal promises that nobody awaits, which the browser reports as an uncaught
 * error; the refusal itself is handled through 'closed'. Once per page.
 */
function ignoreUnawaitedRefusals(): void {
  if (refusalsIgnored) return;
  refusalsIgnored = true;
  addEventListener('unhandledrejection', (event) => {
    if (event.reason instanceof CloseEvent && event.reason.code === REFUSED) event.preventDefault();
  });
}

/**
 * The console's one WebSocket (issue 50): graphql-ws on /operator/graphql of this origin, which
 * rest-compat signs in by the console cookie alone (no connectionParams: the router ignores them
 * there). Open only while a view follows something; reconnects after a drop, but not after a
 * refusal (4403: the session ended or its key was revoked), which `onRefused` reports at once.
 */
export function consoleLiveClient(onState: (state: LiveState) => void, onRefused: () => void): Client {
  ignoreUnawaitedRefusals();
  const client = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/operator/graphql`,
    lazy: true,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: (event) => (event as CloseEvent | undefined)?.code !== REFUSED,
  });
  client.on('connected', () => onState('live'));
  client.on('closed', (event) => {
    const code = (event as CloseEvent | undefined)?.code;
    if (code === REFUSED) onRefused();
    onState(code === 1000 ? 'idle' : 'down');
  });
  client.on('error', () => onState('down'));
  return client;
}

export interface ConsoleLive {
  client: Client | null;
  state: LiveState;
}

export const LiveContext = createContext<ConsoleLive>({ client: null, state: 'down' });

/**
 * Follows one subscription while mounted (and `enabled`): its latest data, and whether it is live
 * now. A view keeps a slow poll as the fallback and reads this data instead while `live` is true.
 */
export function useLive<T>(
  query: string,
  variables: Record<string, unknown>,
  enabled: boolean,
  deps: unknown[],
): { data: T | null; live: boolean } {
  const { client, state } = useContext(LiveContext);
  const [data, setData] = useState<T | null>(null);
  useEffect(() => {
    setData(null);
    if (!client || !enabled) return undefined;
    return subscribe<T>(client, query, variables, setData, () => setData(null));
  }, [client, enabled, ...deps]);
  return { data, live: state === 'live' && data !== null };
}

/** How often a view polls while its subscription is live (only a safety net) and while it is not. */
export const pollWhile = (live: boolean, fallbackMs: number): number => (live ? 60_000 : fallbackMs);
