import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { request as httpRequest, type Dispatcher } from 'undici';
import { BoundCounter, BoundHistogram, createMetricsRegistry, metricsAnswer } from '@gateway/kernel';

/**
 * Requests by route pattern (never the raw URL: ids would explode the label set) and status, on
 * GET /metrics; with `token` (METRICS_TOKEN), only for a scrape that sends it as a bearer token.
 * With `scrape` (the launcher: every registry of the process), /metrics serves those instead of
 * only this registry, which it returns.
 */
export function registerMetrics(app: FastifyInstance, token: string | undefined, scrape?: () => Registry[]): Registry {
  const registry = createMetricsRegistry('rest-compat');
  const requests = new BoundCounter({
    name: 'rest_compat_requests_total',
    help: 'REST requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new BoundHistogram({
    name: 'rest_compat_request_duration_seconds',
    help: 'REST request duration by route',
    labelNames: ['method', 'route'],
    registers: [registry],
  });

  // Counted as the answer is sent (every answer passes onSend: errors and 404s too), not onResponse:
  // an onResponse hook makes fastify listen for each response's end (two listeners added and
  // removed, a closure and the hook run after it), the largest part of this layer's per-request
  // cost in one process (issue 32). The time to write the answer out is not in the duration.
  // A callback hook: it never waits (an async one costs every request a promise and a microtask turn).
  app.addHook('onSend', (request, reply, payload, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.series(request.method, route, reply.statusCode).inc();
    duration.series(request.method, route).observe(reply.elapsedTime / 1000);
    done(null, payload);
  });
  app.get('/metrics', async (request, reply) => {
    const answer = await metricsAnswer(
      scrape?.() ?? registry,
      { authorization: request.headers.authorization, requestId: request.requestId },
      token,
    );
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  return registry;
}

/** /healthz: this process answers. /readyz: the router answers and reports itself ready. */
export function registerHealth(
  app: FastifyInstance,
  routerBaseUrl: string,
  dispatcher: Dispatcher,
  readinessChecks?: () => Record<string, boolean>,
): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const own = readinessChecks?.() ?? {};
    // A stopping process is not ready whatever the router says: no need to ask it.
    if (!Object.values(own).every(Boolean)) return reply.code(503).send({ status: 'unavailable', checks: own });
    const router = await httpRequest(`${routerBaseUrl}/readyz`, {
      dispatcher,
      headersTimeout: 2000,
      bodyTimeout: 2000,
    }).then(
      async (response) => {
        await response.body.dump();
        return response.statusCode === 200;
      },
      () => false,
    );
    return reply
      .code(router ? 200 : 503)
      .send({ status: router ? 'ready' : 'unavailable', checks: { ...own, router } });
  });
}
