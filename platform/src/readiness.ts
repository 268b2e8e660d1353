/**
 * What the platform still waits for before it calls itself ready (router /readyz, and through it
 * rest-compat's): the demo seed at start, `stopping` at shutdown. A script or a load balancer
 * polling /readyz then never sees half a demo, and drains before the servers close.
 */
export interface Readiness {
  hold(gate: string): void;
  release(gate: string): void;
  /** One check per gate held, each false: merged into /readyz's checks. */
  checks(): Record<string, boolean>;
}

export function createReadiness(initial: readonly string[] = []): Readiness {
  const pending = new Set(initial);
  return {
    hold: (gate) => void pending.add(gate),
    release: (gate) => void pending.delete(gate),
    checks: () => Object.fromEntries([...pending].map((gate) => [gate, false])),
  };
}
