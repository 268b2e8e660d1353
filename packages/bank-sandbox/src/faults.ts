import { setTimeout as sleep } from 'node:timers/promises';
import { bankErrors } from './errors';

/** What can go wrong at the core endpoints, for tests and demos of the gateway's resilience. */
export interface FaultPlan {
  /** Extra delay before answering, in ms. */
  latencyMs?: number;
  /** Share of requests (0..1) answered with errorStatus instead. */
  errorRate?: number;
  /** HTTP status of injected errors; default 503. */
  errorStatus?: number;
  /** Never answer (the connection stays open until the caller gives up or the bank stops). */
  hang?: boolean;
  /**
   * Apply the fault after the core has done its work (money moved, then the answer is late,
   * lost or an error): how a gateway retry meets a booking it did not hear about.
   */
  afterBooking?: boolean;
  /** Only the next N core requests (of `operations`), then the plan clears itself; unset: until cleared. */
  times?: number;
  /** Only these core operations (e.g. a credit that fails while debits work); unset: all five. */
  operations?: CoreOperation[];
}

export const coreOperations = ['verify', 'debit', 'credit', 'getAccount', 'listTransactions'] as const;
export type CoreOperation = (typeof coreOperations)[number];

export interface RequestCounts {
  total: number;
  byOperation: Record<CoreOperation, number>;
}

/** Fault plan and request counters of one sandbox bank's core endpoints. */
export class FaultInjector {
  private plan: FaultPlan | null = null;
  private remaining = Infinity;
  private counts = FaultInjector.zeroCounts();

  constructor(private readonly stopping: AbortSignal) {}

  inject(plan: FaultPlan): FaultPlan {
    const clean = validatePlan(plan);
    this.plan = clean;
    this.remaining = clean.times ?? Infinity;
    return clean;
  }

  clear(): void {
    this.plan = null;
    this.remaining = Infinity;
  }

  current(): FaultPlan | null {
    return this.plan ? { ...this.plan, ...(Number.isFinite(this.remaining) ? { times: this.remaining } : {}) } : null;
  }

  requestCounts(): RequestCounts {
    return { total: this.counts.total, byOperation: { ...this.counts.byOperation } };
  }

  resetCounts(): void {
    this.counts = FaultInjector.zeroCounts();
  }

  /** Counts the request and wraps its work in the fault plan active when it arrived. */
  async run<T>(operation: CoreOperation, work: () => Promise<T>): Promise<T> {
    this.counts.total += 1;
    this.counts.byOperation[operation] += 1;
    const plan = this.take(operation);
    if (!plan) return work();
    if (!plan.afterBooking) await this.misbehave(plan);
    const result = await work();
    if (plan.afterBooking) await this.misbehave(plan);
    return result;
  }

  private take(operation: CoreOperation): FaultPlan | null {
    if (!this.plan) return null;
    const plan = this.plan;
    if (plan.operations && !plan.operations.includes(operation)) return null;
    this.remaining -= 1;
    if (this.remaining <= 0) this.clear();
    return plan;
  }

  private async misbehave(plan: FaultPlan): Promise<void> {
    if (plan.latencyMs) await this.sleep(plan.latencyMs);
    if (plan.hang) {
      await this.sleep(Number.MAX_SAFE_INTEGER);
    }
    if (plan.errorRate && Math.random() < plan.errorRate) throw bankErrors.injected(plan.errorStatus ?? 503);
  }

  /** Waits, but never past the bank's stop: a stopping bank drops what it was holding. */
  private async sleep(ms: number): Promise<void> {
    try {
      await sleep(Math.min(ms, 2_147_483_647), undefined, { signal: this.stopping });
    } catch {
      throw new HungRequestReleased();
    }
  }

  private static zeroCounts(): RequestCounts {
    return {
      total: 0,
      byOperation: Object.fromEntries(coreOperations.map((op) => [op, 0])) as Record<CoreOperation, number>,
    };
  }
}

/** Thrown into a request held by a fault when the bank stops; the route drops the connection. */
export class HungRequestReleased extends Error {
  constructor() {
    super('sandbox bank stopped while holding this request');
  }
}

function validatePlan(plan: FaultPlan): FaultPlan {
  const out: FaultPlan = {};
  if (plan.latencyMs !== undefined) {
    if (!Number.isInteger(plan.latencyMs) || plan.latencyMs < 0)
      throw bankErrors.validation('latency_ms: non-negative integer');
    out.latencyMs = plan.latencyMs;
  }
  if (plan.errorRate !== undefined) {
    if (typeof plan.errorRate !== 'number' || plan.errorRate < 0 || plan.errorRate > 1)
      throw bankErrors.validation('error_rate: between 0 and 1');
    out.errorRate = plan.errorRate;
  }
  if (plan.errorStatus !== undefined) {
    if (!Number.isInteger(plan.errorStatus) || plan.errorStatus < 400 || plan.errorStatus > 599) {
      throw bankErrors.validation('error_status: an HTTP error status (400-599)');
    }
    out.errorStatus = plan.errorStatus;
  }
  if (plan.errorStatus !== undefined && plan.errorRate === undefined) out.errorRate = 1;
  if (plan.hang !== undefined) out.hang = Boolean(plan.hang);
  if (plan.afterBooking !== undefined) out.afterBooking = Boolean(plan.afterBooking);
  if (plan.operations !== undefined) {
    if (
      !Array.isArray(plan.operations) ||
      plan.operations.some((op) => !(coreOperations as readonly string[]).includes(op))
    ) {
      throw bankErrors.validation(`operations: some of ${coreOperations.join(', ')}`);
    }
    out.operations = [...plan.operations];
  }
  if (plan.times !== undefined) {
    if (!Number.isInteger(plan.times) || plan.times < 1) throw bankErrors.validation('times: positive integer');
    out.times = plan.times;
  }
  return out;
}
