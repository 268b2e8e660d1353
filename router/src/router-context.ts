import { signPrincipal, type Principal } from '@gateway/kernel';

/** What every operation the router runs knows: who asks, under which request id, and the principal signed for the subgraphs. */
export interface RouterContext {
  principal: Principal;
  requestId: string;
  signedPrincipal: string;
  /** Records how an HTTP request ended (ok or the first error's code), for the latency histogram; absent for subscriptions' operations. */
  reportOutcome?(outcome: string): void;
}

/** A request's labels in router_request_duration_seconds. */
export interface RequestLabels {
  operation: string;
  outcome?: string;
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
  return { principal: caller, requestId, signedPrincipal: signPrincipal(caller, platformSecret), reportOutcome };
}
