import { Client, type Answer } from '../chaos/client';
import type { Window } from './verdicts';

/**
 * Each call's duration by operation (the chaos client's names: `create`, `authorize`, `order`,
 * `refund`, ...; a call's retries included, as a client waits for them), cut into the windows the
 * sampler closes every 10 s. Calls before `begin()` (onboarding, the capacity measure) are left out.
 */
export class Latencies {
  private current = new Map<string, number[]>();
  private recording = false;
  /** Every closed window by operation. */
  readonly windows = new Map<string, Window[]>();

  begin(): void {
    this.current.clear();
    this.recording = true;
  }

  record(operation: string, ms: number): void {
    if (!this.recording) return;
    const values = this.current.get(operation) ?? [];
    values.push(ms);
    this.current.set(operation, values);
  }

  /** Closes the window ending at `t` (seconds since the load began). */
  close(t: number): void {
    for (const operation of new Set([...this.windows.keys(), ...this.current.keys()])) {
      const list = this.windows.get(operation) ?? [];
      list.push({ t, values: this.current.get(operation) ?? [] });
      this.windows.set(operation, list);
    }
    this.current = new Map();
  }

  end(): void {
    this.recording = false;
  }
}

/** The chaos client, timing every call it makes (the chaos driver, refunds and grants call through it). */
export class TimedClient extends Client {
  constructor(private readonly latencies: Latencies) {
    super();
  }

  override async retrying(what: string, send: () => Promise<Answer>, attempts = 30, client = true): Promise<Answer> {
    const started = performance.now();
    const answer = await super.retrying(what, send, attempts, client);
    this.latencies.record(what, performance.now() - started);
    return answer;
  }
}
