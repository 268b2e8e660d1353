import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import {
  BoundCounter,
  BoundHistogram,
  createMetricsRegistry,
  isErrorCode,
  metricsAnswer,
  OperationLabels,
} from '@gateway/kernel';
import type { RequestLabels, RouterContext } from './router-context';

/** How the edge ended a request before Apollo, in router_requests_total. */
export type AdmissionOutcome = 'accepted' | 'rate_limited' | 'unauthenticated';

/** The router's Prometheus metrics, and the stages' ways of feeding them. */
export interface RouterMetrics {
  registry: Registry;
  countAdmission(outcome: AdmissionOutcome): void;
  countForwarded(subgraph: string): void;
  /** A subgraph call saved: a read identical to one in flight took that call's answer (in-flight.ts). */
  countSharedFetch(subgraph: string): void;
  /** Bounded label values for operation names (callers without credentials add from a smaller allowance). */
  operations: OperationLabels;
  /** Starts timing a request; the function returned records it once the HTTP status is known. */
  timed(labels: RequestLabels): (status: number) => void;
  /** Reports a GraphQL answer's outcome to the request's context, for the latency histogram. */
  outcomePlugin: ApolloServerPlugin<RouterContext>;
}

/** A request's outcome when no GraphQL answer said it (Apollo refused the HTTP request itself). */
export function outcomeOfStatus(status: number): string {
  return status < 400 ? 'ok' : `http_${status}`;
}

export function createRouterMetrics(): RouterMetrics {
  const registry = createMetricsRegistry('router');
  const requests = new BoundCounter({
    name: 'router_requests_total',
    help: 'GraphQL requests by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new BoundHistogram({
    name: 'router_request_duration_seconds',
    help: 'GraphQL request duration by operation name and outcome (ok, or the spec error code of the first error)',
    labelNames: ['operation', 'outcome'],
    registers: [registry],
  });
  const forwarded = new BoundCounter({
    name: 'router_forwarded_total',
    help: 'Operations answered past the gateway (forward.ts): by the subgraph answering whole, or a plan run by the router, its subgraphs joined by +',
    labelNames: ['subgraph'],
    registers: [registry],
  });
  const shared = new BoundCounter({
    name: 'router_subgraph_fetches_shared_total',
    help: 'Subgraph calls saved: a read identical to one in flight (same principal, document, variables) took its answer, by subgraph',
    labelNames: ['subgraph'],
    registers: [registry],
  });
  return {
    registry,
    countAdmission: (outcome) => requests.series(outcome).inc(),
    countForwarded: (subgraph) => forwarded.series(subgraph).inc(),
    countSharedFetch: (subgraph) => shared.series(subgraph).inc(),
    operations: new OperationLabels(),
    timed(labels) {
      const started = performance.now();
      return (status) =>
        duration.series(labels.operation, labels.outcome ?? outcomeOfStatus(status)).observeSince(started);
    },
    outcomePlugin,
  };
}

/** GET /metrics: the registries (read at each scrape) in Prometheus' text format; with `token` (METRICS_TOKEN), only for a scrape that sends it. */
export function useMetricsRoute(app: FastifyInstance, registries: () => Registry[], token: string | undefined): void {
  app.get('/metrics', async (request, reply) => {
    const answer = await metricsAnswer(
      registries(),
      { authorization: request.headers.authorization, requestId: request.requestId },
      token,
    );
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
}

/**
 * How a GraphQL request ended, as the client sees it: ok, or the spec code of its first error
 * (formatGatewayError has mapped every error to one by then). The code set is the spec's table,
 * so the label stays bounded.
 */
const outcomePlugin: ApolloServerPlugin<RouterContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        const errors =
          response.body.kind === 'single' ? response.body.singleResult.errors : response.body.initialResult.errors;
        const code = errors?.[0]?.extensions?.code;
        contextValue.reportOutcome?.(!errors?.length ? 'ok' : isErrorCode(code) ? code : 'INTERNAL_ERROR');
      },
    };
  },
};
