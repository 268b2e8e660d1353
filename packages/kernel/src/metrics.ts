import { collectDefaultMetrics, Registry } from 'prom-client';

/** A metrics registry per service, so several services can share one process (embedded mode). */
export function createMetricsRegistry(service: string, withDefaults = false): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (withDefaults) collectDefaultMetrics({ register: registry });
  return registry;
}
