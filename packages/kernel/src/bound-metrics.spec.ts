import { Counter, Histogram, Registry } from 'prom-client';
import { BoundCounter, BoundHistogram } from './bound-metrics';
import { createMetricsRegistry, metricsText } from './metrics';

const OBSERVED = [0.001, 0.005, 0.0051, 0.3, 2, 11, 0.02];

describe('bound metrics', () => {
  it("render exactly as prom-client's own counter and histogram fed the same values", async () => {
    const ours = createMetricsRegistry('svc');
    const theirs = createMetricsRegistry('svc');
    const config = { name: 'requests_total', help: 'Requests', labelNames: ['method', 'route', 'status'] };
    const histogramConfig = { name: 'request_seconds', help: 'Duration', labelNames: ['route'] };
    const counter = new BoundCounter({ ...config, registers: [ours] });
    const histogram = new BoundHistogram({ ...histogramConfig, registers: [ours] });
    const promCounter = new Counter({ ...config, registers: [theirs] });
    const promHistogram = new Histogram({ ...histogramConfig, registers: [theirs] });

    counter.series('GET', '/a/:id', 200).inc();
    counter.series('GET', '/a/:id', 200).inc();
    counter.series('POST', '/a', 503).inc(3);
    promCounter.inc({ method: 'GET', route: '/a/:id', status: '200' });
    promCounter.inc({ method: 'GET', route: '/a/:id', status: '200' });
    promCounter.inc({ method: 'POST', route: '/a', status: '503' }, 3);
    for (const value of OBSERVED) {
      histogram.series('/a/:id').observe(value);
      promHistogram.observe({ route: '/a/:id' }, value);
    }
    histogram.series('/b').observe(0.07);
    promHistogram.observe({ route: '/b' }, 0.07);

    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('requests_total{method="GET",route="/a/:id",status="200",service="svc"} 2');
  });

  it("merge with the process's other registries by name, as prom-client's own histograms do", async () => {
    const config = { name: 'subgraph_request_seconds', help: 'Duration', labelNames: ['operation'] };
    const served = async (make: (registry: Registry) => (operation: string, seconds: number) => void) => {
      const registries = ['identity', 'banks'].map((service) => createMetricsRegistry(service));
      const [identity, banks] = registries.map(make);
      identity!('Resolve', 0.002);
      banks!('Banks', 0.2);
      // Without the process's own figures, which move between two reads.
      return (await metricsText(registries)).split('\n# HELP process_')[0];
    };
    const ours = await served((registry) => {
      const histogram = new BoundHistogram({ ...config, registers: [registry] });
      return (operation, seconds) => histogram.series(operation).observe(seconds);
    });
    const theirs = await served((registry) => {
      const histogram = new Histogram({ ...config, registers: [registry] });
      return (operation, seconds) => histogram.observe({ operation }, seconds);
    });
    expect(ours).toBe(theirs);
    expect(ours!.match(/# TYPE subgraph_request_seconds histogram/g)).toHaveLength(1);
    expect(ours).toMatch(/subgraph_request_seconds_count\{[^}]*operation="Resolve"[^}]*\} 1/);
  });

  it('observe the seconds since a start in milliseconds (performance.now())', async () => {
    const registry = new Registry();
    const histogram = new BoundHistogram({
      name: 'took_seconds',
      help: 'h',
      labelNames: ['op'],
      registers: [registry],
    });
    histogram.series('Resolve').observeSince(performance.now() - 1500);
    const text = await registry.metrics();
    const sum = Number(/took_seconds_sum\{op="Resolve"\} (\S+)/.exec(text)![1]);
    expect(sum).toBeGreaterThanOrEqual(1.5);
    expect(sum).toBeLessThan(2.5);
    expect(text).toContain('took_seconds_bucket{le="1",op="Resolve"} 0');
    expect(text).toContain('took_seconds_bucket{le="2.5",op="Resolve"} 1');
  });

  it('start again from zero on reset, and refuse the wrong number of label values', async () => {
    const registry = new Registry();
    const histogram = new BoundHistogram({ name: 'took_seconds', help: 'h', labelNames: [], registers: [registry] });
    const counter = new BoundCounter({ name: 'done_total', help: 'h', labelNames: ['outcome'], registers: [registry] });
    const series = histogram.series();
    series.observe(0.5);
    counter.series('ok').inc();
    expect(await registry.metrics()).toContain('took_seconds_sum 0.5');

    registry.resetMetrics();
    series.observe(0.001);
    const text = await registry.metrics();
    expect(text).toContain('took_seconds_count 1');
    expect(text).toContain('took_seconds_sum 0.001');
    expect(text).toContain('done_total{outcome="ok"} 0');
    expect(() => counter.series()).toThrow('done_total: 1 label values expected, got 0');
  });
});
