/**
 * Short leases renewed while the work runs (issue 17, "takeover in seconds"): a payment step, a
 * webhook attempt and a settlement position call each belong to the process holding their row's
 * lease. The lease is short, so the work of a process that died is taken over within seconds,
 * and renewed every third of its length while the work runs, so a slow call (a core, a receiver)
 * is never taken over from a live owner. The row also carries the owner's fencing token (new at
 * every takeover); every write of the owner, renewals included, is conditional on it, so an owner
 * that was taken over (a paused or cut-off process) can never write again.
 */
export interface LeaseRenewal {
  /** How long the lease lasts from each renewal. */
  leaseMs: number;
  /** Extends the lease to `until` if this owner still holds it (its fencing token); false: not extended. */
  renew(until: Date): Promise<boolean>;
  /** Whether to skip this renewal: the work holds no call right now, or the process is stopping. */
  idle?(): boolean;
  /**
   * After a refused renewal: whether the lease went to another owner (the token changed). Unset:
   * a refused renewal means it did. The engine's row also refuses a renewal once its own run has
   * moved the step on, which is no loss.
   */
  confirmLost?(): Promise<boolean>;
  /** Told once, when the lease is found lost: the owner stops starting new work. */
  onLost(): void;
  /** A renewal that failed (the database): the work goes on, and the next renewal tries again. */
  onError(error: unknown): void;
}

export interface HeldLease {
  /** Whether a renewal found the lease gone to another owner (the owner's writes are refused anyway). */
  lost(): boolean;
  /**
   * Stops renewing; resolves once a renewal in flight has ended, so the owner's next write (its
   * outcome, which also sets the lease) cannot be overtaken by a late renewal.
   */
  release(): Promise<void>;
}

/** Renewals come every third of the lease: two can be missed (a slow database) before it runs out. */
export const renewalIntervalMs = (leaseMs: number): number => Math.max(100, Math.floor(leaseMs / 3));

/** Keeps a lease while its owner works; see LeaseRenewal. */
export function holdLease(options: LeaseRenewal): HeldLease {
  let lost = false;
  let released = false;
  let inFlight: Promise<void> = Promise.resolve();
  const renewOnce = async (): Promise<void> => {
    try {
      if (await options.renew(new Date(Date.now() + options.leaseMs))) return;
      if (released || (options.confirmLost && !(await options.confirmLost()))) return;
      if (released || lost) return;
      lost = true;
      options.onLost();
    } catch (error) {
      if (!released) options.onError(error);
    }
  };
  const timer = setInterval(() => {
    if (released || lost || options.idle?.()) return;
    inFlight = inFlight.then(renewOnce);
  }, renewalIntervalMs(options.leaseMs));
  timer.unref();
  return {
    lost: () => lost,
    release() {
      released = true;
      clearInterval(timer);
      return inFlight;
    },
  };
}
