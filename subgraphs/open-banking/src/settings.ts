import type { Logger } from '@gateway/kernel';

/** Deadlines of open-banking's calls to bank cores (OTP verification at the consent page). */
export interface CoreCallSettings {
  /** Deadline of one core call attempt. */
  coreTimeoutMs: number;
  /** Attempts per core call (transient failures only). */
  coreAttempts: number;
  /** Deadline of one core call, retries included: the customer is waiting on the page. */
  coreBudgetMs: number;
}

export const DEFAULT_CORE_CALL_SETTINGS: CoreCallSettings = { coreTimeoutMs: 4_000, coreAttempts: 2, coreBudgetMs: 8_000 };

/** What the open-banking subgraph is built with; only platformSecret and production are required. */
export interface OpenBankingSettings {
  platformSecret: string;
  production: boolean;
  /** Base of consent_url, and the issuer (`iss`) of authorization responses. Default http://localhost:8080. */
  publicBaseUrl?: string;
  /** The router's GraphQL endpoint, for the bank registry (late-bound in one process). */
  routerUrl?: () => string;
  /** Bank core call deadlines (tests shorten them). */
  cores?: Partial<CoreCallSettings>;
  logger?: Logger;
}

export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:8080';

/** How long the Directory reuses a bank's routing and an alias's routing (as payments does). */
export const ROUTING_CACHE = { bankMs: 5_000, aliasMs: 1_000 } as const;
