import createClient, { type Client } from 'openapi-fetch';
import type { HttpMethod } from 'openapi-typescript-helpers';
import { errorOf, GatewayConnectionError } from './errors';
import type { paths } from './generated/schema';
import { idempotencyMiddleware, newIdempotencyKey } from './idempotency';
import { paginate, type ListItem, type ListPath } from './pagination';
import { AttemptsExhausted, DEFAULT_RETRY_POLICY, retryingFetch, type FetchFunction, type RetryPolicy } from './retry';
import type { CallMethod, CallOptions, Json, OptionsArgument } from './types';

export interface GatewayClientOptions {
  /** The gateway's base address, e.g. https://pay.example.ly (what /openapi.json lists under servers). */
  baseUrl: string;
  /** Sent as Authorization: Bearer: a merchant key (mk_test_…, mk_live_…), a TPP token (tpk_…) or an access token (at_…). */
  apiKey?: string;
  /** Headers for every call: another credential (X-Service-Admin-Key, X-Consent-Id…). */
  headers?: Record<string, string>;
  /** Retries and timeouts; see RetryPolicy. */
  retry?: Partial<RetryPolicy>;
  /** A fetch of your own (a proxy agent, a test double); the global fetch otherwise. */
  fetch?: FetchFunction;
  /** How Idempotency-Keys are made (default idk_ + a random UUID). */
  newIdempotencyKey?: () => string;
  /** Called before each retry, with why and how long the client waits. */
  onRetry?: (event: { attempt: number; delayMs: number; reason: string; method: string; url: string }) => void;
}

/**
 * A typed client of the gateway's REST API, generated from its OpenAPI document. Each call answers
 * the success body or throws: GatewayApiError (the API's refusal, with its spec code and request
 * id), GatewayUnexpectedResponseError, GatewayConnectionError (no answer after every attempt).
 */
export class GatewayClient {
  /** The underlying openapi-fetch client ({data, error, response}), with the same keys and retries. */
  readonly api: Client<paths, Json>;
  readonly get: CallMethod<'get'>;
  readonly post: CallMethod<'post'>;
  readonly put: CallMethod<'put'>;
  readonly patch: CallMethod<'patch'>;
  readonly delete: CallMethod<'delete'>;

  constructor(options: GatewayClientOptions) {
    const keyed = new WeakSet<Request>();
    const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    const retrying = retryingFetch({
      policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      fetch: baseFetch,
      retrySafe: (request) => request.method === 'GET' || request.method === 'DELETE' || keyed.has(request),
      onRetry: options.onRetry
        ? ({ attempt, delayMs, reason, request }) =>
            options.onRetry!({ attempt, delayMs, reason, method: request.method, url: request.url })
        : undefined,
    });
    this.api = createClient<paths, Json>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: {
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...options.headers,
      },
      fetch: async (request) => {
        try {
          return await retrying(request);
        } catch (error) {
          if (error instanceof AttemptsExhausted)
            throw new GatewayConnectionError(`${request.method} ${request.url}: ${error.message}`, error.attempts, {
              cause: error.lastError,
            });
          throw error;
        }
      },
    });
    this.api.use(idempotencyMiddleware(keyed, options.newIdempotencyKey ?? newIdempotencyKey));
    this.get = this.method('GET');
    this.post = this.method('POST');
    this.put = this.method('PUT');
    this.patch = this.method('PATCH');
    this.delete = this.method('DELETE');
  }

  /**
   * Every item of a list route, page after page (following pagination.next_cursor while has_more),
   * fetched as the loop asks for them. `params.query.limit` sets the page size.
   */
  paginate<Path extends ListPath>(
    path: Path,
    ...options: OptionsArgument<CallOptions<Path, 'get'>>
  ): AsyncGenerator<ListItem<Path>> {
    return paginate(this.get, path, options[0]);
  }

  /**
   * A CSV report (GET /reports/sessions.csv or /reports/refunds.csv for [from, to)) as the stream
   * the API sends it: rows arrive page by page and are never held whole, so a 100,000-row report
   * can be piped to a file or a parser as it comes. A refusal before the first row throws the usual
   * GatewayApiError; aborting `signal` stops the download (and the report on the server).
   */
  async report(
    path: ReportPath,
    query: { from: string; to: string },
    init: { signal?: AbortSignal } = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const { error, response } = await this.api.request(
      'get',
      path as never,
      {
        params: { query },
        parseAs: 'stream',
        signal: init.signal,
      } as never,
    );
    if (!response.ok || !response.body) throw errorOf(response, error);
    return response.body;
  }

  private method<Method extends HttpMethod>(method: Uppercase<Method>): CallMethod<Method> {
    return (async (path: string, options?: Record<string, unknown>) => {
      const { data, error, response } = await this.api.request(method as any, path as never, options as never);
      if (!response.ok) throw errorOf(response, error);
      return data;
    }) as CallMethod<Method>;
  }
}

/** The CSV reports' routes. */
export type ReportPath = '/reports/sessions.csv' | '/reports/refunds.csv';

export const createGatewayClient = (options: GatewayClientOptions): GatewayClient => new GatewayClient(options);
