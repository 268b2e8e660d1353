import type { Logger } from '@gateway/kernel';
import type { Registry } from 'prom-client';
import type { PublicJwks } from './signing-keys/jwks';

/**
 * Deadlines of open-banking's bank-core calls: the OTP check behind the consent page and the live
 * account reads behind AIS. A customer or a TPP is waiting on each, and the router gives a
 * subgraph call 15 s, so one call with its retry stays well under that.
 */
export interface CoreCallSettings {
  /** Deadline of one attempt. */
  coreTimeoutMs: number;
  /** Attempts per call (transient failures only: reads and OTP checks are safe to repeat). */
  coreAttempts: number;
  /** Deadline of one call, retries included. */
  coreBudgetMs: number;
}

export const DEFAULT_CORE_CALL_SETTINGS: CoreCallSettings = {
  coreTimeoutMs: 4_000,
  coreAttempts: 2,
  coreBudgetMs: 9_000,
};

/** What the open-banking subgraph is built with; only platformSecret and production are required. */
export interface OpenBankingSettings {
  platformSecret: string;
  production: boolean;
  /** PRIVATE_TARGETS: a TPP's webhook_url and bank-core calls may name a loopback, private or link-local address. Default false. */
  webhookPrivateTargets?: boolean;
  /** Base of consent_url, and the issuer (`iss`) of authorization responses. Default http://localhost:8080. */
  publicBaseUrl?: string;
  /** The router's GraphQL endpoint, for the bank registry (late-bound in one process). */
  routerUrl?: () => string;
  /** Bank core call deadlines (tests shorten them). */
  cores?: Partial<CoreCallSettings>;
  /** How long a payment order above the exemption limit waits for the customer's SCA before it FAILS. Default 15 minutes. */
  scaTtlMs?: number;
  /** Bank-core reads one GraphQL request may make (OB_MAX_CORE_CALLS_PER_REQUEST). Default 10. */
  maxCoreCallsPerRequest?: number;
  /**
   * OB_DIRECTORY_JWKS: the keys of the directory whose software statements admit a TPP to dynamic
   * client registration (RFC 7591). Unset: registration is not enabled.
   */
  directoryJwks?: PublicJwks;
  /** DPOP_NONCE_REQUIRED: every DPoP proof must carry a server nonce (RFC 9449 8). Default: in production. */
  dpopNoncesRequired?: boolean;
  logger?: Logger;
  /** The service's metrics registry (/metrics): the bank-core clients' call metrics go there. */
  metrics?: Registry;
}

export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:8080';

/**
 * How long the Directory reuses a bank's routing and an alias's routing (as payments does): a
 * suspended bank takes new consents' authorisations, orders and data reads for at most a second.
 */
export const ROUTING_CACHE = { bankMs: 1_000, aliasMs: 1_000 } as const;
