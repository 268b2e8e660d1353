/** What the open-banking subgraph is built with; only platformSecret and production are required. */
export interface OpenBankingSettings {
  platformSecret: string;
  production: boolean;
  /** Base of consent_url. Default http://localhost:8080. */
  publicBaseUrl?: string;
  /** The router's GraphQL endpoint, for the bank registry (late-bound in one process). */
  routerUrl?: () => string;
}

export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:8080';
