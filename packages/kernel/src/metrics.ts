import {
  collectDefaultMetrics,
  Registry,
  type Metric,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';

/** A metrics registry per service, so several services can share one process (embedded mode). */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  return registry;
}

let processRegistry: Registry | undefined;

/**
 * The process's own figures (CPU, memory, event loop lag, GC, handles: prom-client's default
 * metrics), collected once per process. The launcher runs every service in one process: one
 * collector each would measure the same process several times over (and start as many event-loop
 * and GC observers), so every service's /metrics shows this one set, without a service label:
 * it describes the process, which the scrape target (instance) already names.
 */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * What a /metrics answers: the registries' metrics, then the process's. Same text format.
 *
 * Several registries (one process running every service: the launcher's rest-compat and router
 * serve them all, so one scrape target has every series) are merged by metric name: services
 * share names (subgraph_request_duration_seconds in each subgraph, bank_core_* in payments and
 * open-banking), and the text format wants one HELP/TYPE and every sample of a name together.
 * Their `service` labels keep the series apart. prom-client's Registry.merge cannot do this: it
 * refuses a name registered twice and drops each registry's default labels (the `service`).
 */
export async function metricsText(registries: Registry | Registry[]): Promise<string> {
  const list = Array.isArray(registries) ? registries : [registries];
  const own = list.length === 1 ? list[0]! : await merged(list);
  const [text, process] = await Promise.all([own.metrics(), processMetrics().metrics()]);
  return `${text.trimEnd()}\n${process}`;
}

/** One registry holding, per metric name, the samples of every registry (default labels applied), read now. */
async function merged(registries: Registry[]): Promise<Registry> {
  type Family = MetricObjectWithValues<MetricValue<string>>;
  const families = new Map<string, Family>();
  for (const registry of new Set(registries)) {
    for (const metric of (await registry.getMetricsAsJSON()) as Family[]) {
      const family = families.get(metric.name);
      if (family) family.values.push(...metric.values);
      else families.set(metric.name, { ...metric, values: [...metric.values] });
    }
  }
  const registry = new Registry();
  // A registry renders anything with a name and get(): the merged family, already read.
  for (const family of families.values())
    registry.registerMetric({ ...family, get: async () => family } as unknown as Metric);
  return registry;
}
