import { Counter, Histogram, Registry } from 'prom-client';

export interface BankCoreMetrics {
  duration: Histogram<'bank' | 'operation' | 'outcome'>;
  retries: Counter<'bank' | 'operation' | 'reason'>;
}

const DURATION = 'bank_core_call_duration_seconds';
const RETRIES = 'bank_core_call_retries_total';

/**
 * The client's metrics in the service's registry. Every bank's client in a service shares them
 * (labelled by bank), so they are looked up before being created.
 */
export function bankCoreMetrics(registry: Registry): BankCoreMetrics {
  const duration =
    (registry.getSingleMetric(DURATION) as Histogram<'bank' | 'operation' | 'outcome'> | undefined) ??
    new Histogram({
      name: DURATION,
      help: 'Bank core calls (all attempts of one call), by bank, operation and outcome',
      labelNames: ['bank', 'operation', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  const retries =
    (registry.getSingleMetric(RETRIES) as Counter<'bank' | 'operation' | 'reason'> | undefined) ??
    new Counter({
      name: RETRIES,
      help: 'Bank core attempts retried, by bank, operation and the failure that caused the retry',
      labelNames: ['bank', 'operation', 'reason'],
      registers: [registry],
    });
  return { duration, retries };
}
