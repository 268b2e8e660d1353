/**
 * Nonces already accepted, each remembered for at least `keepMs` after it was spent: a replay
 * within that time is refused, and memory holds only what was spent in the last two generations.
 * Why not an LRU with a ttl: lru-cache drops an expired entry only when it is read or pushed out
 * by `max`, so a nonce memory of 100,000 kept every nonce until it was full (about an hour of
 * service calls: the soak's heap growth, issue 52). Two generations of `keepMs` each: a nonce
 * spent late in one is still in the previous one for a whole generation after, and the older is
 * dropped whole, without a timer or a scan.
 */
export class SpentNonces {
  private current = new Set<string>();
  private previous = new Set<string>();
  private startedAt: number;

  constructor(
    private readonly keepMs: number,
    /** At most this many in a generation: past it (a flood) the generation turns early, the oldest dropped. */
    private readonly maxPerGeneration: number,
    now = Date.now(),
  ) {
    this.startedAt = now;
  }

  /** True the first time `nonce` is spent within `keepMs`, false for a replay. */
  spend(nonce: string, now = Date.now()): boolean {
    if (now - this.startedAt >= 2 * this.keepMs) {
      this.previous = new Set();
      this.current = new Set();
      this.startedAt = now;
    } else if (now - this.startedAt >= this.keepMs) this.turn(now);
    if (this.current.has(nonce) || this.previous.has(nonce)) return false;
    if (this.current.size >= this.maxPerGeneration) this.turn(now);
    this.current.add(nonce);
    return true;
  }

  /** How many are remembered now. */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  private turn(now: number): void {
    this.previous = this.current;
    this.current = new Set();
    this.startedAt = now;
  }
}
