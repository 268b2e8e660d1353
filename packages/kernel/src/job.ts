import type { Logger } from './logger';

export interface Job {
  /**
   * Runs the tick now (its work is known to be due: a notification, a check on the process's
   * heartbeat), or right after the one in progress; the interval counts again from there.
   */
  wake(): void;
  /** Stops scheduling and waits for a tick in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `tick` every `intervalMs`, never two at once (the next one is scheduled when the previous
 * one ends), logging failures instead of dying: a background job outlives bad moments. A job
 * told by something else when its work is due (wake) keeps a long interval as a fallback.
 */
export function startJob(name: string, intervalMs: number, tick: () => Promise<unknown>, logger: Logger): Job {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = () => {
    if (stopped) return;
    if (current) {
      again = true;
      return;
    }
    clearTimeout(timer);
    current = tick().then(
      () => undefined,
      (error) => logger.error({ err: error, job: name }, 'background job failed; trying again next time'),
    );
    void current.finally(() => {
      current = undefined;
      if (again) {
        again = false;
        run();
      } else schedule();
    });
  };
  const schedule = () => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    wake: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
