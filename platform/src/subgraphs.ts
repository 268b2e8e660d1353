import type { RunningService, SubgraphStartOptions } from '@gateway/federation';
import * as banks from '@gateway/subgraph-banks';
import * as identity from '@gateway/subgraph-identity';
import * as openBanking from '@gateway/subgraph-open-banking';
import * as payments from '@gateway/subgraph-payments';
import type { EngineSettings, PaymentsStartOptions } from '@gateway/subgraph-payments';
import type { OpenBankingJobSettings } from '@gateway/subgraph-open-banking';
import type { GraphQLSchema } from 'graphql';
import type { PlatformConfig } from './config';

/** Per-service settings a caller (tests) sets beside the environment. */
export interface ServiceOverrides {
  /** Deadline of one webhook attempt (tests shorten the contract's 10 s). */
  webhookAttemptTimeoutMs?: number;
  /** Payment engine and job timing (tests shorten core deadlines, leases and job intervals). */
  paymentsEngine?: Partial<EngineSettings>;
  /** How long a payment session waits for its payer (default SESSION_TTL_SECONDS; tests shorten it below the environment's minimum). */
  paymentsSessionTtlSeconds?: number;
  /** Settlement timing besides the interval (tests shorten how long a run waits and the retry pauses). */
  paymentsSettlement?: PaymentsStartOptions['settlement'];
  /** Open Banking job timing (tests shorten the consent expiry interval). */
  openBankingJobs?: Partial<OpenBankingJobSettings>;
  /** How long a payment order above the exemption limit waits for SCA (default 15 minutes; tests shorten it). */
  openBankingScaTtlMs?: number;
}

export interface SubgraphModule {
  name: 'banks' | 'identity' | 'payments' | 'open-banking';
  port(config: PlatformConfig): number;
  /** Starts the service with the options every service takes and its own, taken from the config and overrides. */
  start(common: SubgraphStartOptions, config: PlatformConfig, overrides: ServiceOverrides): Promise<RunningService>;
  /** The schema alone, for printing the committed SDL. */
  buildSchema(): Promise<GraphQLSchema>;
}

// The schema's shape does not depend on settings; these only satisfy the builders' signatures.
const printing = { platformSecret: 'sdl-printing-only', production: false };

/** Every subgraph of the supergraph, in start order. */
export const SUBGRAPHS: SubgraphModule[] = [
  {
    name: 'banks',
    port: (c) => c.ports.banks,
    start: (common, config) => banks.start({ ...common, ...config.banks }),
    buildSchema: () => banks.buildBanksSchema(printing),
  },
  {
    name: 'identity',
    port: (c) => c.ports.identity,
    start: (common) => identity.start(common),
    buildSchema: () => identity.buildIdentitySchema(),
  },
  {
    name: 'payments',
    port: (c) => c.ports.payments,
    start: (common, config, overrides) =>
      payments.start({
        ...common,
        ...config.payments,
        sessionTtlSeconds: overrides.paymentsSessionTtlSeconds ?? config.payments.sessionTtlSeconds,
        webhookAttemptTimeoutMs: overrides.webhookAttemptTimeoutMs,
        engine: overrides.paymentsEngine,
        settlement: overrides.paymentsSettlement,
      }),
    buildSchema: () => payments.buildPaymentsSchema(printing),
  },
  {
    name: 'open-banking',
    port: (c) => c.ports.openBanking,
    // consent_url shares the customer-facing base of checkout_url (PUBLIC_BASE_URL).
    start: (common, config, overrides) =>
      openBanking.start({
        ...common,
        publicBaseUrl: config.payments.publicBaseUrl,
        webhookPrivateTargets: config.openBanking.webhookPrivateTargets,
        jobs: overrides.openBankingJobs,
        scaTtlMs: overrides.openBankingScaTtlMs ?? config.openBanking.scaTtlMs,
        maxCoreCallsPerRequest: config.openBanking.maxCoreCallsPerRequest,
        directoryJwks: config.openBanking.directoryJwks,
        dpopNoncesRequired: config.openBanking.dpopNoncesRequired,
      }),
    buildSchema: () => openBanking.buildOpenBankingSchema(printing),
  },
];
