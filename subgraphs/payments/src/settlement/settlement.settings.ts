/** Settlement timing; core deadlines, leases, replays and the recovery interval are the engine's (EngineSettings). */
export interface SettlementSettings {
  /** A cycle runs this often (SETTLEMENT_INTERVAL_SECONDS); 0: only on demand. */
  intervalMs: number;
  /** How long POST /settlement/cycles waits for the positions' first calls before answering the cycle as it stands. */
  waitMs: number;
  /**
   * Longest pause between two tries of a position (a core down, a refusal): the pause doubles
   * from the engine's retryDelayMs up to this.
   */
  retryMaxMs: number;
}

export const DEFAULT_SETTLEMENT_INTERVAL_SECONDS = 3_600;

export const DEFAULT_SETTLEMENT_SETTINGS: SettlementSettings = {
  intervalMs: DEFAULT_SETTLEMENT_INTERVAL_SECONDS * 1000,
  waitMs: 5_000,
  retryMaxMs: 5 * 60_000,
};

/** The pause before the next try of a position that has had `attempts` calls. */
export function retryPause(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 20));
}
