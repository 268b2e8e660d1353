/** A signal that aborts once `ms` have passed, and the end of its timer. */
export interface TimeoutSignal {
  signal: AbortSignal;
  /** Ends the timer: call it once the work the signal guards is over, answered or not. */
  clear(): void;
}

/**
 * An AbortSignal that aborts with a TimeoutError (as AbortSignal.timeout's does) after `ms`,
 * unless `clear()` ends its timer first. Why not AbortSignal.timeout: its timer cannot be
 * cleared, so every outgoing call left one behind that fired after the answer and built a
 * DOMException with its stack trace: about 30 µs of the event loop a same-bank payment (its
 * bank core calls and webhook), for nothing (issue 53). The timer keeps no process alive.
 */
export function timeoutSignal(ms: number): TimeoutSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
