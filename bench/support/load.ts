import { performance } from 'node:perf_hooks';

export interface LoadResult {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The first failure's message, when a request failed: printed under the table, so a case that only fails says why. */
  firstError?: string;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const percentile = (sorted: number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

/**
 * A closed loop: `concurrency` workers each send one request, wait for it, send the next, until
 * the duration is over. Bounded in time; a failed request counts as an error, not a latency.
 */
export async function runLoad(
  name: string,
  options: { concurrency: number; durationMs: number },
  request: (worker: number, i: number) => Promise<void>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + options.durationMs;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < deadline; i += 1) {
        const t0 = performance.now();
        try {
          await request(worker, i);
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors += 1;
          firstError ??= messageOf(error);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ...(firstError !== undefined ? { firstError } : {}),
  };
}

/** Open loop: a request every 1/rate s whatever the answers, never more than `cap` in flight (extra arrivals are dropped and counted as errors). */
export async function runOpenLoad(
  name: string,
  rate: number,
  durationMs: number,
  cap: number,
  work: () => Promise<void>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let inFlight = 0;
  const pending: Array<Promise<void>> = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < durationMs; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight >= cap) {
      errors += 1;
      continue;
    }
    inFlight += 1;
    const t0 = performance.now();
    pending.push(
      work()
        .then(
          () => void latencies.push(performance.now() - t0),
          (error) => {
            errors += 1;
            firstError ??= messageOf(error);
          },
        )
        .finally(() => (inFlight -= 1)),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    name,
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    ...(firstError !== undefined ? { firstError } : {}),
  };
}
export function printTable(results: LoadResult[]): void {
  console.log(
    `${'case'.padEnd(44)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'requests'.padStart(9)} ${'errors'.padStart(7)}`,
  );
  for (const r of results) {
    console.log(
      `${r.name.padEnd(44)} ${r.perSecond.toFixed(0).padStart(9)} ${r.p50Ms.toFixed(2).padStart(8)} ${r.p99Ms.toFixed(2).padStart(8)} ${String(r.requests).padStart(9)} ${String(r.errors).padStart(7)}`,
    );
  }
  for (const r of results.filter((result) => result.firstError !== undefined))
    console.log(`  first error of "${r.name}": ${r.firstError}`);
}
