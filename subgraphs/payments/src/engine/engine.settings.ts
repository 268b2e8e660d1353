/** Timing of the payment engine and its jobs; every value can be set at start (tests make them short). */
export interface EngineSettings {
  /** Deadline of one core call attempt. */
  coreTimeoutMs: number;
  /** Attempts per core call (same reference each time: the core deduplicates). */
  coreAttempts: number;
  /** Deadline of one core call, retries included. */
  coreBudgetMs: number;
  /** How long a step belongs to the process running it; longer than coreBudgetMs. */
  leaseMs: number;
  /** Wait before trying again a step whose outcome the core left unknown, or whose bank was unreachable. */
  retryDelayMs: number;
  /** How often the recovery job looks for steps whose lease ran out. */
  recoveryIntervalMs: number;
  /** How often PENDING sessions past their TTL are expired. */
  expiryIntervalMs: number;
  /** How long POST /pay/{id}/authorize waits for the engine before answering with the current status. */
  authorizeWaitMs: number;
  /** Lifetime of the sst_ session token issued on OTP success. */
  sessionTokenTtlSeconds: number;
  /** How long a bank's routing (core URL, key, limits) is reused before it is asked again. */
  bankRoutingCacheMs: number;
  /** How long an alias's routing is reused: a deactivated alias stays routable at most this long. 0: always ask. */
  aliasRoutingCacheMs: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  coreTimeoutMs: 4_000,
  coreAttempts: 3,
  coreBudgetMs: 6_000,
  leaseMs: 30_000,
  retryDelayMs: 5_000,
  recoveryIntervalMs: 2_000,
  expiryIntervalMs: 5_000,
  // Verification plus this stays under the router's 15 s per subgraph call.
  authorizeWaitMs: 7_000,
  sessionTokenTtlSeconds: 3_600,
  bankRoutingCacheMs: 5_000,
  aliasRoutingCacheMs: 1_000,
};

/** Wrong OTPs after which a session fails (issue: three). */
export const MAX_OTP_FAILURES = 3;
