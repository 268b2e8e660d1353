import { Counter, Histogram } from 'prom-client';
import { createMetricsRegistry } from './metrics';
import { envMetricsToken, metricsAnswer, requireMetricsTokenInProduction } from './metrics-access';
import { loadConfig, z } from './config';

const TOKEN = 'metrics-token-0123456789abcdef';

describe('/metrics behind METRICS_TOKEN', () => {
  const registry = createMetricsRegistry('probe');
  new Counter({ name: 'probe_requests_total', help: 'requests', registers: [registry] }).inc();

  it('answers the figures to anyone when no token is set', async () => {
    const answer = await metricsAnswer(registry, { requestId: 'req_open' }, undefined);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/probe_requests_total\{service="probe"\} 1/);
  });

  it('with a token, answers only a bearer of it; anything else is 401 in the spec error body', async () => {
    for (const authorization of [undefined, '', 'Bearer', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
      const refused = await metricsAnswer(registry, { authorization, requestId: 'req_closed' }, TOKEN);
      expect(refused).toEqual({
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="metrics"' },
        body: {
          error: {
            code: 'UNAUTHORIZED',
            message: expect.any(String),
            detail: expect.stringContaining('METRICS_TOKEN'),
            request_id: 'req_closed',
          },
        },
      });
    }
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`]) {
      const served = await metricsAnswer(registry, { authorization, requestId: 'req_scrape' }, TOKEN);
      expect(served.status).toBe(200);
      expect(served.body).toMatch(/probe_requests_total/);
    }
  });

  it('refuses a production environment without a token, and a short token anywhere', () => {
    const schema = z
      .object({ NODE_ENV: z.string().optional(), METRICS_TOKEN: envMetricsToken })
      .superRefine(requireMetricsTokenInProduction);
    expect(() => loadConfig(schema, { NODE_ENV: 'production' })).toThrow(/METRICS_TOKEN: required in production mode/);
    expect(loadConfig(schema, { NODE_ENV: 'production', METRICS_TOKEN: TOKEN }).METRICS_TOKEN).toBe(TOKEN);
    expect(loadConfig(schema, {}).METRICS_TOKEN).toBeUndefined();
    expect(() => loadConfig(schema, { METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: at least 24 characters/);
  });
});

describe('/metrics of several services in one process', () => {
  it('merges their registries by metric name, one HELP and TYPE per name, each series with its service label', async () => {
    const [payments, identity] = [createMetricsRegistry('payments'), createMetricsRegistry('identity')];
    for (const [registry, count] of [
      [payments, 2],
      [identity, 3],
    ] as const) {
      const histogram = new Histogram({ name: 'shared_seconds', help: 'shared', buckets: [1], registers: [registry] });
      for (let n = 0; n < count; n += 1) histogram.observe(0.5);
    }
    new Counter({ name: 'payments_only_total', help: 'own', registers: [payments] }).inc();

    const answer = await metricsAnswer([payments, identity, payments], { requestId: 'req_merged' }, undefined);
    const text = answer.body as string;
    expect(text.match(/^# TYPE shared_seconds histogram$/gm)).toHaveLength(1);
    expect(text).toMatch(/^shared_seconds_count\{service="payments"\} 2$/m);
    expect(text).toMatch(/^shared_seconds_count\{service="identity"\} 3$/m);
    expect(text).toMatch(/^shared_seconds_bucket\{le="1",service="identity"\} 3$/m);
    // A registry listed twice is read once.
    expect(text.match(/^payments_only_total\{service="payments"\} 1$/gm)).toHaveLength(1);
    expect(text.match(/^process_cpu_user_seconds_total /gm)).toHaveLength(1);
  });
});
