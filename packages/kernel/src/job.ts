import type { Logger } from './logger';

export interface Job {
  /** Stops scheduling and waits for a tick in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `tick` every `intervalMs`, never two at once (the next one is scheduled when the previous
 * one ends), logging failures instead of dying: a background job outlives bad moments.
 */
export function startJob(name: string, intervalMs: number, tick: () => Promise<unknown>, logger: Logger): Job {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = tick()
        .then(
          () => undefined,
          (error) => logger.error({ err: error, job: name }, 'background job failed; trying again next time'),
        )
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
