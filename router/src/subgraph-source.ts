import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { Agent } from 'undici';
import { GatewayError, localEndpoint, PRINCIPAL_HEADER, REQUEST_ID_HEADER, withinDeadline, type LocalRequest, type LocalResponse } from '@gateway/kernel';
import { subgraphFetcher } from './subgraph-fetch';

/**
 * A call to a subgraph that runs in this process (kernel's in-process.ts), with the signed
 * principal, the request id and the deadline its HTTP transport has; undefined when it runs
 * elsewhere. The gateway's data source and the router's forwarder (forward.ts) both call here.
 */
export function callInProcess(
  subgraph: string,
  url: string,
  timeoutMs: number,
  caller: { signedPrincipal: string; requestId: string },
  body: LocalRequest['body'],
): Promise<LocalResponse> | undefined {
  const local = localEndpoint(url);
  if (!local) return undefined;
  return withinDeadline(
    local({ headers: { [PRINCIPAL_HEADER]: caller.signedPrincipal, [REQUEST_ID_HEADER]: caller.requestId }, body, ip: '127.0.0.1' }),
    timeoutMs,
    () => new GatewayError('SERVICE_UNAVAILABLE', `the ${subgraph} service did not answer within ${timeoutMs} ms`),
  );
}

/** What the router's context gives a subgraph call: the principal signed for it and the request id. */
type SubgraphAnswer = Awaited<ReturnType<RemoteGraphQLDataSource['process']>>;

export interface SubgraphCallContext extends Record<string, unknown> {
  signedPrincipal: string;
  requestId: string;
}

/**
 * One subgraph as the gateway reaches it: in this process when it runs here (kernel's
 * in-process.ts: the subgraph's own Apollo server, context and error mapping, no socket and no
 * node-fetch Request per call), else over HTTP with undici. Either way it carries the signed
 * principal and the request id, and a subgraph that does not answer in time is 503.
 */
export class SubgraphDataSource extends RemoteGraphQLDataSource<SubgraphCallContext> {
  constructor(
    private readonly subgraph: string,
    url: string,
    private readonly timeoutMs: number,
    agent: Agent,
  ) {
    super({ url, fetcher: subgraphFetcher(subgraph, timeoutMs, agent) as never });
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<SubgraphCallContext>): void {
    request.http?.headers.set(PRINCIPAL_HEADER, context.signedPrincipal);
    request.http?.headers.set(REQUEST_ID_HEADER, context.requestId);
  }

  override async process(options: GraphQLDataSourceProcessOptions<SubgraphCallContext>): Promise<SubgraphAnswer> {
    // Only a client's operation runs in process; the gateway's own health checks and schema loads keep HTTP.
    if (!('incomingRequestContext' in options) || !localEndpoint(this.url!)) return super.process(options);
    const { request, context } = options;
    if (!request.query) throw new Error('Missing query');
    // Apollo refuses a present but undefined operationName (400): only the keys that are set.
    const body = {
      query: request.query,
      ...(request.variables ? { variables: request.variables } : {}),
      ...(request.operationName ? { operationName: request.operationName } : {}),
    };
    const answer = await callInProcess(this.subgraph, this.url!, this.timeoutMs, context, body)!;
    // Over HTTP a non-2xx answer is an error of the call (RemoteGraphQLDataSource.errorFromResponse);
    // subgraphs answer their GraphQL errors with 200 (federation's server.ts), so this is a fault.
    if (answer.status >= 300) throw new Error(`${this.subgraph} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    return JSON.parse(answer.body) as SubgraphAnswer;
  }
}
