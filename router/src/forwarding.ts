import { NoSchemaIntrospectionCustomRule, type GraphQLFormattedError, type ValidationRule } from 'graphql';
import type { Agent } from 'undici';
import type { CredentialHeaders } from './authenticate';
import type { SubgraphEndpoint } from './compose';
import { createForwarder, type Forwarded, type Forwarder } from './forward';
import { MAX_TOKENS, type OperationSource } from './operation';
import type { RequestLabels, RouterContext } from './router-context';
import type { RouterMetrics } from './router-metrics';
import type { SharedFetches } from './subgraph-call';

/** The answer of the subgraph that answers the request whole, counted; undefined: Apollo's to answer. */
export type ForwardWhole = (
  source: OperationSource | undefined,
  headers: CredentialHeaders,
  context: RouterContext,
  labels: RequestLabels,
) => Promise<Forwarded | undefined> | undefined;

export interface ForwardingOptions {
  supergraphSdl: string;
  subgraphs: SubgraphEndpoint[];
  production: boolean;
  /** The document limits Apollo runs (document-limits.ts). */
  validationRules: readonly ValidationRule[];
  timeoutMs: number;
  agent: Agent;
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  metrics: Pick<RouterMetrics, 'countForwarded'>;
  /** Identical reads in flight share one subgraph call (in-flight.ts), each saved call counted; absent: never shared. */
  shared?: SharedFetches;
}

/**
 * The edge's forwarding stage: an operation one subgraph answers whole skips the gateway
 * (forward.ts); the rest goes through Apollo. A forwarded answer is counted by subgraph and its
 * outcome labels the request's latency, as Apollo's outcome plugin does for the others.
 */
export function createForwarding(options: ForwardingOptions): ForwardWhole {
  const forward = createForwarder({
    supergraphSdl: options.supergraphSdl,
    subgraphs: options.subgraphs,
    // Apollo adds its own refusal of introspection in production: the forwarder checks it too.
    validationRules: [...(options.production ? [NoSchemaIntrospectionCustomRule] : []), ...options.validationRules],
    maxTokens: MAX_TOKENS,
    timeoutMs: options.timeoutMs,
    agent: options.agent,
    formatError: options.formatError,
    shared: options.shared,
  });
  return countedForwards(forward, options.metrics);
}

/** `forward`'s answers counted by subgraph, their outcome written to the request's labels. */
export function countedForwards(forward: Forwarder, metrics: Pick<RouterMetrics, 'countForwarded'>): ForwardWhole {
  return (source, headers, context, labels) =>
    forward(source, headers, context)?.then((forwarded) => {
      if (forwarded) {
        metrics.countForwarded(forwarded.subgraph);
        labels.outcome = forwarded.outcome;
      }
      return forwarded;
    });
}
