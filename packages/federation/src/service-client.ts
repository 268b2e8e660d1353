import {
  callGraphQL,
  GatewayError,
  isErrorCode,
  newId,
  PRINCIPAL_HEADER,
  resultOf,
  type LocalResponse,
  REQUEST_ID_HEADER,
  retryAfterOf,
  ROUTER_AUDIENCE,
  signPrincipal,
} from '@gateway/kernel';

export interface ServiceClientOptions {
  /** The router's GraphQL endpoint; a function because in one process the router starts last. */
  routerUrl: () => string;
  platformSecret: string;
  /** Who is calling, e.g. `payments`. */
  service: string;
  timeoutMs?: number;
}

interface GraphQLAnswer {
  data?: unknown;
  errors?: Array<{ extensions?: { code?: string; detail?: string; retryAfter?: unknown } }>;
}

/**
 * A service call answered with errors: the first one's code, and the data that came with them. A
 * mutation whose own field ran but a field resolved after it failed (another subgraph, through the
 * router) still says what it did there.
 */
export class ServiceCallError extends GatewayError {
  constructor(
    code: ConstructorParameters<typeof GatewayError>[0],
    detail: string | undefined,
    retryAfterSeconds: number | undefined,
    readonly data: unknown,
  ) {
    super(code, detail, undefined, retryAfterSeconds);
  }
}

export type ServiceClient = <T = Record<string, any>>(
  query: string,
  variables?: Record<string, unknown>,
  requestId?: string,
) => Promise<T>;

/**
 * How one subgraph asks another for data: through the router, as a `service` principal, so the
 * owner's schema stays its own. Each call is signed anew, for the router and for that call's
 * request id: the router accepts it once, within its life (kernel's principal.ts). A spec-coded
 * error (ALIAS_NOT_FOUND, …) is rethrown as is, as a ServiceCallError carrying the answer's data.
 */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (query, variables = {}, requestId = newId('request')) => {
    const url = options.routerUrl();
    const headers = {
      'content-type': 'application/json',
      [PRINCIPAL_HEADER]: signPrincipal({ kind: 'service', id: options.service }, options.platformSecret, {
        audience: ROUTER_AUDIENCE,
        requestId,
      }),
      [REQUEST_ID_HEADER]: requestId,
    };
    // In process when the router runs here (kernel's in-process.ts), else over HTTP: one deadline, one error.
    const answer = await callGraphQL(
      url,
      { headers, body: { query, variables }, ip: '127.0.0.1' },
      { timeoutMs, failure: () => new GatewayError('SERVICE_UNAVAILABLE', 'the router is unreachable') },
    );
    const body = parsedAnswer(answer);
    const error = body.errors?.[0];
    if (error) {
      const code = error.extensions?.code;
      throw isErrorCode(code)
        ? new ServiceCallError(code, error.extensions?.detail, retryAfterOf(error.extensions), body.data)
        : new ServiceCallError('INTERNAL_ERROR', 'service call failed', undefined, body.data);
    }
    // No result at all (a balancer's or proxy's own page, an answer cut short): the router was not
    // reached as a GraphQL server, which is not an answer the caller can read fields of.
    if (body.data === undefined || body.data === null)
      throw new GatewayError('SERVICE_UNAVAILABLE', `the router answered ${answer.status} without a GraphQL result`);
    return body.data as never;
  };
}

/** The router's answer; one that is not JSON carries neither data nor errors. */
function parsedAnswer(answer: LocalResponse): GraphQLAnswer {
  try {
    return resultOf<GraphQLAnswer>(answer);
  } catch {
    return {};
  }
}
