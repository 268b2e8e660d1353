/**
 * GraphQL endpoints served by this process, by the URL they listen on (issue 15: no HTTP between
 * the platform's own parts in one process), and the one call that reaches them (issue 26: one
 * transport seam, as Hive Gateway's useCustomFetch).
 *
 * A server (the router, each subgraph) registers its /graphql URL with a handler that runs the same
 * request as its HTTP route does: same authentication, limits, context and error mapping, only
 * without the socket, the HTTP parsing and the JSON round trip of the request. A caller (rest-compat,
 * the router's gateway and forwarder, a service client) sends every request through `callGraphQL`:
 * a URL served here runs here; any other (another process, a load balancer's address) goes over
 * HTTP. So the one-process layout (`npm start`) runs in process and split layouts keep HTTP, with
 * no setting to get wrong, and a caller sees the same deadline and the same errors either way.
 * GRAPHQL_TRANSPORT=http (or `serve(..., { enabled: false })`) keeps HTTP in one process too:
 * tests run both transports.
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
  if (transport !== 'in-process' && transport !== 'http')
    throw new Error(`GRAPHQL_TRANSPORT must be in-process or http, not "${transport}"`);
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

/** The handler serving `url` in this process, if any: the one lookup, made by callGraphQL only. */
function localEndpoint(url: string): LocalHandler | undefined {
  return handlers.size === 0 ? undefined : handlers.get(normalise(url));
}

/**
 * `http://127.0.0.1:4001/graphql` and `http://127.0.0.1:4001/graphql/` name one endpoint. Run on
 * every call: the usual URL has no trailing slash and is returned as it is, without a regex.
 */
function normalise(url: string): string {
  return url.endsWith('/') ? url.replace(/\/+$/, '') : url;
}

/** A caller's HTTP transport: POSTs the request's JSON body to `url`, reads the whole answer, gives up once `signal` aborts. */
export type HttpTransport = (url: string, request: LocalRequest, signal: AbortSignal) => Promise<LocalResponse>;

export interface GraphQLCallOptions {
  /** The deadline of the whole call, answer body included, whichever transport carries it. */
  timeoutMs: number;
  /** The error thrown when no answer came: `late` when the deadline passed, else the transport failed (unreachable, a handler that threw). */
  failure: (late: boolean, cause: unknown) => Error;
  /** For a URL served elsewhere; default: the global fetch. Callers with a connection pool of their own pass it here. */
  overHttp?: HttpTransport;
}

/**
 * One GraphQL request to `url`: to the handler serving it in this process, else over HTTP. The
 * in-process call keeps the deadline its HTTP transport has (the work itself goes on, as a
 * server's does after its client gave up), and both fail with the caller's one `failure`. An
 * answer, whatever its status, is returned as the HTTP route would have sent it.
 */
export function callGraphQL(url: string, request: LocalRequest, options: GraphQLCallOptions): Promise<LocalResponse> {
  const local = localEndpoint(url);
  return local ? withinDeadline(local, request, options) : overHttpWithinDeadline(url, request, options);
}

/**
 * The in-process call: a timer is the whole deadline. No AbortController: nothing here can be
 * aborted (the handler runs on, as a server does after its client left), and a signal with its
 * listeners, an async frame and the promises of a race cost more than the rest of the hop on
 * one-process REST calls, which make two of these per request (rest-compat -> router -> subgraph).
 */
function withinDeadline(
  local: LocalHandler,
  request: LocalRequest,
  options: GraphQLCallOptions,
): Promise<LocalResponse> {
  return new Promise<LocalResponse>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(options.failure(true, new Error(`no answer within ${options.timeoutMs} ms`)));
    }, options.timeoutMs);
    const answered = (answer: LocalResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const failed = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(options.failure(false, error));
    };
    try {
      local(request).then(answered, failed);
    } catch (error) {
      failed(error); // a handler that throws before its first await fails like one that rejects
    }
  });
}

/** Over HTTP: the transport gets the deadline's signal, so a late answer's socket is given up. */
async function overHttpWithinDeadline(
  url: string,
  request: LocalRequest,
  options: GraphQLCallOptions,
): Promise<LocalResponse> {
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Error(`no answer within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  try {
    return await (options.overHttp ?? overFetch)(url, request, deadline.signal);
  } catch (error) {
    throw options.failure(deadline.signal.aborted, error);
  } finally {
    clearTimeout(timer);
  }
}

/** The default HTTP transport: the global fetch (undici's, without a pool of the caller's own). */
const overFetch: HttpTransport = async (url, request, signal) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...request.headers, 'content-type': 'application/json' },
    body: JSON.stringify(request.body),
    signal,
  });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
};
