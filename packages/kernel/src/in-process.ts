import type { LocalHandler, LocalRequest, LocalResponse } from './graphql-exchange';
import { framedHttp } from './framed-transport';
import { DeadlinePassed, pooledHttp, type HttpTransport } from './pooled-http';

/**
 * GraphQL endpoints served by this process, by the URL they listen on (issue 15: no HTTP between
 * the platform's own parts in one process), and the one call that reaches them (issue 26: one
 * transport seam, as Hive Gateway's useCustomFetch).
 *
 * A server (the router, each subgraph) registers its /graphql URL with a handler that runs the same
 * request as its HTTP route does: same authentication, limits, context and error mapping, only
 * without the socket, the HTTP parsing and the JSON round trip of the request, nor of an answer
 * made here (graphql-exchange.ts: LocalResponse.json). A caller (rest-compat,
 * the router's gateway and forwarder, a service client) sends every request through `callGraphQL`:
 * a URL served here runs here; any other (another process, a load balancer's address) goes over
 * the caller's transport: HTTP, or for the router's calls to subgraphs the framed channel where the
 * subgraph grants it (betweenProcesses). So the one-process layout (`npm start`) runs in process
 * and split layouts use sockets, with no setting to get wrong, and a caller sees the same deadline
 * and the same errors either way.
 * GRAPHQL_TRANSPORT=http (or `serve(..., { enabled: false })`) keeps plain HTTP everywhere: tests
 * run every transport.
 */

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

export interface GraphQLCallOptions {
  /** The deadline of the whole call, answer body included, whichever transport carries it. */
  timeoutMs: number;
  /** The error thrown when no answer came: `late` when the deadline passed, else the transport failed (unreachable, a handler that threw). */
  failure: (late: boolean, cause: unknown) => Error;
  /**
   * For a URL served elsewhere; default: pooledHttp over undici's global pool. Callers with a pool
   * of their own pass `pooledHttp(pool)`; the router's calls to subgraphs `betweenProcesses(...)`.
   */
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
 * The in-process call: a deadline is all it adds. No AbortController: nothing here can be
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
    const deadlines = deadlinesOf(options.timeoutMs);
    let settled = false;
    const deadline = deadlines.add(() => {
      settled = true;
      reject(options.failure(true, new Error(`no answer within ${options.timeoutMs} ms`)));
    });
    const answered = (answer: LocalResponse) => {
      if (settled) return;
      settled = true;
      deadlines.delete(deadline);
      resolve(answer);
    };
    const failed = (error: unknown) => {
      if (settled) return;
      settled = true;
      deadlines.delete(deadline);
      reject(options.failure(false, error));
    };
    try {
      local(request).then(answered, failed);
    } catch (error) {
      failed(error); // a handler that throws before its first await fails like one that rejects
    }
  });
}

interface Deadline {
  due: number;
  late: () => void;
}

/**
 * The deadlines of the in-process calls made with one timeout. They end in the order they began,
 * so one timer, armed for the oldest, serves them all: a timer per call (its object, its list and,
 * with the async hooks MikroORM's AsyncLocalStorage turns on, its init hook) cost each hop more
 * than an entry in a Set (issue 32). A call that settles leaves the set; when the timer fires it
 * fails the calls past their deadline and is armed again for the oldest left, and it is cleared
 * when none is left, so an idle process keeps no timer.
 */
class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  add(late: () => void): Deadline {
    const deadline = { due: performance.now() + this.timeoutMs, late };
    this.pending.add(deadline);
    this.timer ??= setTimeout(() => this.fire(), this.timeoutMs);
    return deadline;
  }

  delete(deadline: Deadline): void {
    this.pending.delete(deadline);
    if (this.pending.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    const late: Deadline[] = [];
    for (const deadline of this.pending) {
      if (deadline.due > now) break;
      late.push(deadline);
    }
    for (const deadline of late) this.pending.delete(deadline);
    // Armed for the oldest left before the late are told (their callers may run on at once).
    const oldest = this.pending.values().next();
    if (!oldest.done) this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(oldest.value.due - now)));
    for (const deadline of late) deadline.late();
  }
}

const deadlinesByTimeout = new Map<number, Deadlines>();

function deadlinesOf(timeoutMs: number): Deadlines {
  let deadlines = deadlinesByTimeout.get(timeoutMs);
  if (!deadlines) deadlinesByTimeout.set(timeoutMs, (deadlines = new Deadlines(timeoutMs)));
  return deadlines;
}

/** Over HTTP: the transport keeps the deadline (pooled-http.ts) and says when it passed. */
function overHttpWithinDeadline(
  url: string,
  request: LocalRequest,
  options: GraphQLCallOptions,
): Promise<LocalResponse> {
  return (options.overHttp ?? overGlobalPool)(url, request, options.timeoutMs).catch((error: unknown) => {
    throw options.failure(error instanceof DeadlinePassed, error);
  });
}

/**
 * How a caller reaches a GraphQL endpoint in another process: the framed channel where the
 * endpoint grants it (framed-transport.ts: the subgraphs), else `overHttp`. GRAPHQL_TRANSPORT=http
 * (read when the caller is made, as a server reads it when it registers) keeps plain HTTP.
 */
export function betweenProcesses(overHttp: HttpTransport): HttpTransport {
  return inProcessTransportEnabled() ? framedHttp(overHttp) : overHttp;
}

// Service clients call the router, which grants no framed channel: plain HTTP.
const overGlobalPool = pooledHttp();
