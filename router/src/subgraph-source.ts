import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { Agent } from 'undici';
import { resultOf } from '@gateway/kernel';
import { subgraphCall, type SharedFetches, type SubgraphCall, type SubgraphCaller } from './subgraph-call';

type SubgraphAnswer = Awaited<ReturnType<RemoteGraphQLDataSource['process']>>;

/** What the router's context gives a subgraph call: the principal signed for it and the request id. */
export interface SubgraphCallContext extends SubgraphCaller, Record<string, unknown> {}

/**
 * One subgraph as the gateway reaches it: through the router's one subgraph call (subgraph-call.ts),
 * in this process when it runs here (the subgraph's own Apollo server, context and error mapping,
 * no socket and no node-fetch Request per call), else over HTTP; either way with the signed
 * principal, the request id and one deadline. Only `process` is used: the supergraph is static, so
 * the gateway loads no schema and checks no health through Apollo's own fetch.
 */
export class SubgraphDataSource extends RemoteGraphQLDataSource<SubgraphCallContext> {
  private readonly call: SubgraphCall;

  constructor(
    private readonly subgraph: string,
    url: string,
    timeoutMs: number,
    agent: Agent,
    shared?: SharedFetches,
  ) {
    super({ url });
    this.call = subgraphCall(subgraph, url, timeoutMs, agent, shared);
  }

  override async process({
    request,
    context,
  }: GraphQLDataSourceProcessOptions<SubgraphCallContext>): Promise<SubgraphAnswer> {
    if (!request.query) throw new Error('Missing query');
    // Apollo refuses a present but undefined operationName (400): only the keys that are set.
    const body = {
      query: request.query,
      ...(request.variables ? { variables: request.variables } : {}),
      ...(request.operationName ? { operationName: request.operationName } : {}),
    };
    // Every call is a client's operation (a static supergraph: no schema loads, no health checks), so the context is the router's.
    const answer = await this.call(context as SubgraphCallContext, body);
    // A non-2xx answer is an error of the call, as RemoteGraphQLDataSource.errorFromResponse makes
    // it; subgraphs answer their GraphQL errors with 200 (federation's server.ts), so this is a fault.
    if (answer.status >= 300)
      throw new Error(`${this.subgraph} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    return resultOf<SubgraphAnswer>(answer);
  }
}
