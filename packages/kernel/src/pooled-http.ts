import { getGlobalDispatcher, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { LocalRequest, LocalResponse } from './graphql-exchange';
import { memoized } from './memoized';

/** What an HTTP transport rejects with when `timeoutMs` passed before the whole answer came. */
export class DeadlinePassed extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'DeadlinePassed';
  }
}

/**
 * A caller's HTTP transport: POSTs the request's JSON body to `url` and reads the whole answer
 * within `timeoutMs`, else rejects with DeadlinePassed (and gives the socket up).
 */
export type HttpTransport = (url: string, request: LocalRequest, timeoutMs: number) => Promise<LocalResponse>;

/** Where a URL is sent (undici's dispatch takes the origin and the path apart; framed-transport.ts connects to host and port). Callers use a handful of URLs. */
export const targetOf = memoized(
  256,
  (url): { origin: string; path: string; host: string; port: number; plain: boolean } => {
    const parsed = new URL(url);
    const plain = parsed.protocol === 'http:';
    return {
      origin: parsed.origin,
      path: `${parsed.pathname}${parsed.search}`,
      host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), // [::1] -> ::1 for net.connect
      port: Number(parsed.port || (plain ? 80 : 443)),
      plain,
    };
  },
);

/**
 * The HTTP transport over an undici pool (`dispatcher`; default undici's global one, the global
 * fetch's). It dispatches with a handler of its own, and one timer is the deadline: undici's
 * `request` wraps every answer in a Readable stream and a caller's AbortSignal adds a controller
 * and its listeners, which together cost about as much CPU as the rest of a router's forwarded
 * request (bench/peers.ts: ~80 µs per call on 2 cores).
 */
export function pooledHttp(dispatcher?: Dispatcher): HttpTransport {
  return (url, request, timeoutMs) =>
    new Promise<LocalResponse>((resolve, reject) => {
      const { origin, path } = targetOf(url);
      const chunks: Buffer[] = [];
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      let controller: Dispatcher.DispatchController | undefined;
      let settled = false;
      const settle = (error: Error | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else
          resolve({ status, headers: headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      };
      const timer = setTimeout(() => {
        const late = new DeadlinePassed(timeoutMs);
        settle(late);
        controller?.abort(late); // not yet started: onRequestStart aborts it
      }, timeoutMs);
      (dispatcher ?? getGlobalDispatcher()).dispatch(
        {
          origin,
          path,
          method: 'POST',
          headers: { ...request.headers, 'content-type': 'application/json' },
          body: JSON.stringify(request.body),
        },
        {
          onRequestStart(started) {
            controller = started;
            if (settled) started.abort(new DeadlinePassed(timeoutMs));
          },
          onResponseStart(_controller, statusCode, responseHeaders) {
            status = statusCode;
            headers = responseHeaders;
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            settle(undefined);
          },
          onResponseError(_controller, error) {
            settle(error);
          },
        },
      );
    });
}
