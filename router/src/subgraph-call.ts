import type { Agent } from 'undici';
import {
  betweenProcesses,
  callGraphQL,
  GatewayError,
  pooledHttp,
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  type LocalRequest,
  type LocalResponse,
} from '@gateway/kernel';
import { sharingInFlight } from './in-flight';

/** Who calls and under which request id: what the router's context gives every subgraph call. */
export interface SubgraphCaller {
  requestId: string;
  /** The principal signed for one subgraph (by its name: the audience it checks) and this request. */
  signedFor(subgraph: string): string;
  /** The principal unsigned (its JSON): everything a subgraph's answer depends on about who asks (in-flight.ts). */
  who: string;
}

/**
 * One GraphQL request to a subgraph, answered as its HTTP route would answer it. `reads`: whether
 * it is a query, when the caller knows (the router's plans); unset, the document is read for it.
 */
export type SubgraphCall = (
  caller: SubgraphCaller,
  body: LocalRequest['body'],
  reads?: boolean,
) => Promise<LocalResponse>;

/** Identical reads in flight share one call (in-flight.ts); each call saved is counted by subgraph. Absent: never shared. */
export type SharedFetches = (subgraph: string) => void;

/**
 * How the router reaches one subgraph, for the gateway's data source and the forwarder alike: in
 * this process when the subgraph runs here, else as frames on a few upgraded connections (kernel's
 * framed-transport.ts), else (a subgraph or balancer that does not grant them) over HTTP through
 * the router's own undici pool (kernel's pooledHttp: the global fetch, or undici's `request`, cost
 * more CPU per call on this hot path); always with the principal signed for this subgraph and
 * the request, the request id and one deadline (kernel's callGraphQL). An unreachable or silent
 * subgraph is 503 SERVICE_UNAVAILABLE, never a hang or an opaque 500. With `shared`, identical
 * reads in flight at once make one call (in-flight.ts).
 */
export function subgraphCall(
  subgraph: string,
  url: string,
  timeoutMs: number,
  agent: Agent,
  shared?: SharedFetches,
): SubgraphCall {
  const overHttp = betweenProcesses(pooledHttp(agent));
  const failure = (late: boolean) =>
    new GatewayError(
      'SERVICE_UNAVAILABLE',
      `the ${subgraph} service ${late ? `did not answer within ${timeoutMs} ms` : 'is unreachable'}`,
    );
  const call = (caller: SubgraphCaller, body: LocalRequest['body']) =>
    callGraphQL(
      url,
      {
        headers: { [PRINCIPAL_HEADER]: caller.signedFor(subgraph), [REQUEST_ID_HEADER]: caller.requestId },
        body,
        ip: '127.0.0.1',
      },
      { timeoutMs, failure, overHttp },
    );
  return shared ? sharingInFlight(call, () => shared(subgraph)) : call;
}
