import type { Logger } from '@gateway/kernel';

/** Deadlines of the bank-core reads behind account data, and how long bank routing is reused. */
export interface AccountReadSettings {
  /** One attempt; the spec gives a core 10 s, a TPP waiting on a data call gets less. */
  coreTimeoutMs: number;
  /** Reads are safe to repeat: a 5xx or timeout is tried again once. */
  coreAttempts: number;
  /** The whole read, retries included (under the router's 15 s per subgraph call). */
  coreBudgetMs: number;
  bankRoutingCacheMs: number;
  aliasRoutingCacheMs: number;
}

export const DEFAULT_ACCOUNT_READS: AccountReadSettings = {
  coreTimeoutMs: 5_000,
  coreAttempts: 2,
  coreBudgetMs: 10_000,
  bankRoutingCacheMs: 5_000,
  aliasRoutingCacheMs: 1_000,
};

/** What the open-banking subgraph is built with; only platformSecret and production are required. */
export interface OpenBankingSettings {
  platformSecret: string;
  production: boolean;
  /** Base of consent_url. Default http://localhost:8080. */
  publicBaseUrl?: string;
  /** The router's GraphQL endpoint, for the bank registry (late-bound in one process). */
  routerUrl?: () => string;
  logger?: Logger;
  accountReads?: Partial<AccountReadSettings>;
}

export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:8080';
