import { createClient, type Client } from 'graphql-ws';

/**
 * The public GraphQL API as any merchant's own dashboard calls it: POST /graphql and graphql-ws on
 * the same path of this origin (rest-compat hands both to the router), signed in by the session
 * cookie (session.ts), which the browser sends and no script here can read. Nothing here knows
 * more than a merchant could.
 */

/** A refusal as the API gave it: its spec code and its message, shown as they are. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

/**
 * Calls under way: a sign-out waits for them (callsAnswered), so none reaches the gateway after the
 * session it ends and is answered 401, which the browser reports as an error of a page that did
 * nothing wrong. Shared by the merchant's dashboard and the operator's console.
 */
const callsUnderWay = new Set<Promise<Response>>();

/** fetch, counted among the calls a sign-out waits for. */
export function sendCall(url: string, init: RequestInit): Promise<Response> {
  const call = fetch(url, init);
  callsUnderWay.add(call);
  const forget = () => void callsUnderWay.delete(call);
  call.then(forget, forget);
  return call;
}

/**
 * Called once the signed-in views are taken off the page (their polls and sockets stopped): after a
 * turn of the event loop the unmount is done, and then the calls they had sent are answered.
 */
export async function callsAnswered(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  while (callsUnderWay.size > 0) await Promise.allSettled([...callsUnderWay]);
}

export async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  let response: Response;
  try {
    response = await sendCall('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ query, variables }),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError('NETWORK_ERROR', 'The gateway could not be reached. Check the connection and try again.');
  }
  let answer: GraphQLAnswer<T>;
  try {
    answer = (await response.json()) as GraphQLAnswer<T>;
  } catch {
    throw new ApiError('SERVICE_UNAVAILABLE', `The gateway answered HTTP ${response.status} without a GraphQL body.`);
  }
  const error = answer.errors?.[0];
  if (error) throw new ApiError(error.extensions?.code ?? 'INTERNAL_ERROR', error.message);
  if (!answer.data) throw new ApiError('INTERNAL_ERROR', 'The gateway answered without data.');
  return answer.data;
}

/** live: the socket is open; idle: nothing to follow, so no socket (lazy); down: it closed on an error and is being retried. */
export type LiveState = 'live' | 'idle' | 'down';

/** One WebSocket for every live subscription of a signed-in merchant, open only while there is something to follow; reconnects by itself. */
export function liveClient(onState: (state: LiveState) => void): Client {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const client = createClient({
    url,
    lazy: true,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => true,
  });
  client.on('connected', () => onState('live'));
  client.on('closed', (event) => onState((event as CloseEvent | undefined)?.code === 1000 ? 'idle' : 'down'));
  client.on('error', () => onState('down'));
  return client;
}

/** Subscribes and hands over each message's data; returns the unsubscribe function. */
export function subscribe<T>(
  client: Client,
  query: string,
  variables: Record<string, unknown>,
  onData: (data: T) => void,
  onError: (error: ApiError) => void,
): () => void {
  return client.subscribe<T>(
    { query, variables },
    {
      next: (message) => {
        const error = message.errors?.[0];
        if (error) return onError(new ApiError(String(error.extensions?.code ?? 'INTERNAL_ERROR'), error.message));
        if (message.data) onData(message.data as T);
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
}

export const describeError = (error: unknown): ApiError =>
  error instanceof ApiError
    ? error
    : new ApiError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
