/**
 * GraphQL endpoints served by this process, by the URL they listen on (issue 15: no HTTP between
 * the platform's own parts in one process).
 *
 * A server (the router, each subgraph) registers its /graphql URL with a handler that runs the same
 * request as its HTTP route does: same authentication, limits, context and error mapping, only
 * without the socket, the HTTP parsing and the JSON round trip of the request. A caller (rest-compat,
 * the router's gateway, a service client) looks its target URL up before each request: found, the
 * request runs here; not found (another process, a load balancer's address), it goes over HTTP.
 * So the one-process layout (`npm start`) runs in process and split layouts keep HTTP, with no
 * setting to get wrong. GRAPHQL_TRANSPORT=http (or `serve(..., { enabled: false })`) keeps HTTP
 * in one process too: tests run both transports.
 */

/** One request as the HTTP route would have received it. */
export interface LocalRequest {
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string>;
  /** The parsed JSON body: { query, variables, operationName }. */
  body: { query: string; variables?: Record<string, unknown>; operationName?: string };
  /** The client address the HTTP route would have read from the socket or X-Forwarded-For. */
  ip: string;
}

/** The HTTP answer the route would have sent: status, headers and the JSON body as text. */
export interface LocalResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type LocalHandler = (request: LocalRequest) => Promise<LocalResponse>;

const handlers = new Map<string, LocalHandler>();

/** Whether this process serves its GraphQL endpoints to itself without HTTP (default yes). */
export function inProcessTransportEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const transport = env.GRAPHQL_TRANSPORT ?? 'in-process';
  if (transport !== 'in-process' && transport !== 'http') throw new Error(`GRAPHQL_TRANSPORT must be in-process or http, not "${transport}"`);
  return transport === 'in-process';
}

/**
 * Serves `url` to callers in this process until the returned function is called (the server's
 * stop, before it closes). Not registered when the in-process transport is off.
 */
export function serveInProcess(url: string, handler: LocalHandler, options: { enabled?: boolean } = {}): () => void {
  if (!(options.enabled ?? inProcessTransportEnabled())) return () => undefined;
  const key = normalise(url);
  handlers.set(key, handler);
  return () => {
    if (handlers.get(key) === handler) handlers.delete(key);
  };
}

/** The handler serving `url` in this process, if any. */
export function localEndpoint(url: string): LocalHandler | undefined {
  return handlers.size === 0 ? undefined : handlers.get(normalise(url));
}

/** `http://127.0.0.1:4001/graphql` and `http://127.0.0.1:4001/graphql/` name one endpoint. */
function normalise(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * `work`, or the error `late` makes once `ms` have passed: an in-process call keeps the deadline its
 * HTTP transport has (the work itself goes on, as a server's does after its client gave up).
 */
export function withinDeadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
