import type { Logger } from '@gateway/kernel';
import type { Registry } from 'prom-client';
import type { EngineSettings } from './engine/engine.settings';
import type { SettlementSettings } from './settlement/settlement.settings';

/** What the payments subgraph is built with; only platformSecret and production shape nothing but behaviour. */
export interface PaymentsSettings {
  platformSecret: string;
  production: boolean;
  /** PRIVATE_TARGETS: webhooks and bank-core calls may go to loopback, private and link-local addresses. Default false. */
  webhookPrivateTargets?: boolean;
  /** Base of checkout_url. Default http://localhost:8080. */
  publicBaseUrl?: string;
  /** Session TTL. Default 900 (15 minutes). */
  sessionTtlSeconds?: number;
  /** The router's GraphQL endpoint, for the identity and bank registries (late-bound in one process). */
  routerUrl?: () => string;
  engine?: Partial<EngineSettings>;
  settlement?: Partial<SettlementSettings>;
  logger?: Logger;
  /** The service's metrics registry (/metrics): the bank-core clients' call metrics go there. */
  metrics?: Registry;
}

export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:8080';
export const DEFAULT_SESSION_TTL_SECONDS = 900;
