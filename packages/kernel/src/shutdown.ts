import { z } from 'zod';
import type { Logger } from './logger';

/**
 * SHUTDOWN_DRAIN_SECONDS: how long a service answers /readyz 503 after SIGTERM before it stops
 * taking requests. Longer than the balancer needs to see it (HAProxy: `inter` × `fall`; Kubernetes:
 * the readiness probe's period × failureThreshold), so no new request is routed to a closing port.
 */
export const envDrainSeconds = z.coerce.number().min(0).max(300).default(3);

export interface ShutdownOptions {
  logger: Logger;
  /** Seconds of not-ready before stop() (SHUTDOWN_DRAIN_SECONDS). */
  drainSeconds: number;
  /** Stops taking new work, lets in-flight work end (or hands it back), closes pools; the process then exits 0. */
  stop(): Promise<void>;
}

export interface Shutdown {
  /** A /readyz check: `accepting` turns false at the first SIGTERM/SIGINT. */
  readiness(): Record<string, boolean>;
}

/**
 * A service process's SIGTERM/SIGINT: not ready first (the balancer drains it), then after the
 * drain its own stop() (no new work, in-flight work finished or handed back), then exit 0; exit 1
 * when stopping failed. A second signal only says it is still stopping: whoever wants it gone at
 * once sends SIGKILL (Kubernetes does after terminationGracePeriodSeconds).
 */
export function handleShutdownSignals(options: ShutdownOptions): Shutdown {
  let accepting = true;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!accepting) {
      options.logger.warn({ signal }, 'still stopping');
      return;
    }
    accepting = false;
    options.logger.info({ signal, drain_seconds: options.drainSeconds }, 'stopping: not ready, draining');
    void (async () => {
      let code = 0;
      try {
        await new Promise((resolve) => setTimeout(resolve, options.drainSeconds * 1000));
        await options.stop();
        options.logger.info('stopped');
      } catch (error) {
        options.logger.error({ err: error }, 'stopping failed');
        code = 1;
      }
      process.exit(code);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { readiness: () => ({ accepting }) };
}
