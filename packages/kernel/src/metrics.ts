import { collectDefaultMetrics, Registry } from 'prom-client';

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

/** What a service's /metrics answers: its own metrics, then the process's. Same text format. */
export async function metricsText(registry: Registry): Promise<string> {
  const [own, process] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
  return `${own.trimEnd()}\n${process}`;
}
