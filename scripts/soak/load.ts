import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The capacity of the machine for the payment mix: `concurrency` workers calling `payment` back to
 * back (a closed loop) for `seconds`; answers payments per second.
 */
export async function measureCapacity(payment: () => Promise<void>, seconds: number, concurrency: number) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const begin = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await payment();
        done += 1;
      }
    }),
  );
  return { done, perSecond: done / ((Date.now() - begin) / 1000) };
}

/**
 * Open-loop arrivals: the n-th starts at begin + n / rate whether or not the earlier ones have
 * ended (a slow platform meets more work in flight, as it would from real clients, instead of
 * slowing the load down). Past `maxInFlight` an arrival is shed and counted: the platform has
 * fallen behind the rate, a verdict of its own.
 */
export class OpenLoop {
  inFlight = 0;
  started = 0;
  shed = 0;
  failed = 0;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();

  constructor(
    readonly rate: number,
    private readonly arrival: () => Promise<void>,
    private readonly maxInFlight = 400,
  ) {}

  /** Arrivals from `begin` until `until` (epoch ms) or stop(). */
  async run(begin: number, until: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const due = begin + (n * 1000) / this.rate;
      if (due >= until) break;
      if (due > Date.now()) await sleep(due - Date.now());
      if (this.stopped) break;
      if (this.inFlight >= this.maxInFlight) {
        this.shed += 1;
        continue;
      }
      this.started += 1;
      this.inFlight += 1;
      const work: Promise<void> = this.arrival()
        .catch(() => void (this.failed += 1))
        .finally(() => {
          this.inFlight -= 1;
          this.running.delete(work);
        });
      this.running.add(work);
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** Every arrival started has ended. */
  async drained(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }
}
