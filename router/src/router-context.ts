import { principalSigner, type Principal } from '@gateway/kernel';
import type { SubgraphCaller } from './subgraph-call';

/** What every operation the router runs knows: who asks, under which request id, and how its principal is signed for each subgraph. */
export interface RouterContext extends SubgraphCaller {
  principal: Principal;
  /** Records how an HTTP request ended (ok or the first error's code), for the latency histogram; absent for subscriptions' operations. */
  reportOutcome?(outcome: string): void;
}

/** A request's labels in router_request_duration_seconds. */
export interface RequestLabels {
  operation: string;
  outcome?: string;
}

/**
 * The caller of one request as its subgraph calls send it: the principal signed for each subgraph
 * and this request (kernel's principalSigner: a signature for one subgraph is never good at
 * another, nor for another request), and who it is unsigned, which identical reads share by.
 */
export function subgraphCallerOf(platformSecret: string, principal: Principal, requestId: string): SubgraphCaller {
  return {
    requestId,
    who: JSON.stringify(principal),
    signedFor: principalSigner(principal, platformSecret, requestId),
  };
}

/** The context of an admitted request, for Apollo and the forwarder alike; no principal: an anonymous caller at `ip`. */
export function routerContextOf(
  platformSecret: string,
  principal: Principal | undefined,
  requestId: string,
  labels: RequestLabels | undefined,
  ip: string,
): RouterContext {
  const caller = principal ?? { kind: 'anonymous' as const, ip };
  const reportOutcome = (outcome: string) => {
    if (labels) labels.outcome = outcome;
  };
  return { principal: caller, ...subgraphCallerOf(platformSecret, caller, requestId), reportOutcome };
}
