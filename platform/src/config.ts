import {
  envFlag,
  envMetricsToken,
  envPort,
  loadConfig,
  privateTargetsSet,
  requireMetricsTokenInProduction,
  z,
} from '@gateway/kernel';
import { banksConfigFrom, banksEnvSchema, type BanksConfig } from '@gateway/subgraph-banks';
import { openBankingConfigFrom, openBankingOwnEnvSchema, type OpenBankingConfig } from '@gateway/subgraph-open-banking';
import { paymentsConfigFrom, paymentsEnvSchema, type PaymentsConfig } from '@gateway/subgraph-payments';
import { routerEnvSchema } from '@gateway/router';

/**
 * The platform's environment (API-CONTRACT "Configuration"), validated at once: the launcher's own
 * variables and each service's (payments defines PUBLIC_BASE_URL, SESSION_TTL_SECONDS,
 * WEBHOOK_RETRY_SCHEDULE and SETTLEMENT_INTERVAL_SECONDS; open-banking SCA_TTL_SECONDS; the router
 * SUBSCRIPTION_MAX_LIFETIME_SECONDS), so a variable means the same whether a
 * service runs alone or here.
 */
export const platformEnv = z
  .object({
    NODE_ENV: z.string().optional(),
    DATABASE_URL: z.string().min(1).optional(),
    AMQP_URL: z.string().min(1).optional(),
    ADMIN_KEY: z.string().min(24, 'at least 24 characters').optional(),
    PLATFORM_SECRET: z.string().min(32, 'at least 32 characters').optional(),
    /** Where rest-compat and the router listen (the public services). */
    HOST: z.string().default('127.0.0.1'),
    /** Where the subgraphs listen: loopback unless told otherwise, whatever HOST says (only the router and services call them). */
    SUBGRAPH_HOST: z.string().default('127.0.0.1'),
    METRICS_TOKEN: envMetricsToken,
    REST_PORT: envPort.default(8080),
    ROUTER_PORT: envPort.default(4000),
    BANKS_PORT: envPort.default(0),
    IDENTITY_PORT: envPort.default(0),
    PAYMENTS_PORT: envPort.default(0),
    OPEN_BANKING_PORT: envPort.default(0),
    SANDBOX_BANKS: envFlag.optional(),
    SANDBOX_PORT_BASE: envPort.default(7101),
    DATA_DIR: z.string().default('.data'),
    /** Where the router keeps its compositions for the next start of the same schemas (router/src/compose.ts); unset: composed every start. */
    SUPERGRAPH_CACHE_DIR: z.string().min(1).optional(),
    /** Proxies in front of the REST port whose X-Forwarded-For is believed (addresses, CIDRs or loopback; comma-separated), as for rest-compat alone. */
    TRUST_PROXY: z.string().optional(),
    /**
     * Where the router's limit counters live: memory (default: one process, one router) or
     * postgres (counted together with every other router on the database).
     */
    RATE_LIMIT_STORE: z.enum(['memory', 'postgres']).default('memory'),
    /** Operator's custom limits, e.g. {"identity_resolve":{"points":6000}} (spec "Limits": defaults). */
    RATE_LIMITS: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (!value) return undefined;
        try {
          return JSON.parse(value) as Record<string, { points?: number; durationSeconds?: number }>;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be JSON, e.g. {"read":{"points":600}}' });
          return z.NEVER;
        }
      }),
  })
  .extend(routerEnvSchema.shape)
  .extend(paymentsEnvSchema.shape)
  .extend(openBankingOwnEnvSchema.shape)
  .extend(banksEnvSchema.shape)
  .superRefine(requireMetricsTokenInProduction)
  .superRefine((env, ctx) => {
    if (env.NODE_ENV !== 'production') return;
    // Production never runs on generated secrets or the embedded database.
    for (const key of ['ADMIN_KEY', 'PLATFORM_SECRET', 'DATABASE_URL'] as const) {
      if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required in production mode' });
    }
    if (!env.PUBLIC_BASE_URL.startsWith('https://'))
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_BASE_URL'], message: 'must be https in production mode' });
  });

export type PlatformEnv = z.infer<typeof platformEnv>;

export interface PlatformConfig {
  production: boolean;
  /** No DATABASE_URL: PGlite under DATA_DIR. */
  embedded: boolean;
  databaseUrl?: string;
  amqpUrl?: string;
  adminKey?: string;
  platformSecret?: string;
  /** rest-compat's and the router's listening address (HOST). */
  host: string;
  /** The subgraphs' listening address (SUBGRAPH_HOST). */
  subgraphHost: string;
  /** The bearer token every service's /metrics asks for (METRICS_TOKEN; required in production). */
  metricsToken?: string;
  ports: { rest: number; router: number; banks: number; identity: number; payments: number; openBanking: number };
  sandboxBanks: boolean;
  /** Sandbox banks listen on fixed ports (their URLs are registered), from this one up. */
  sandboxPortBase: number;
  dataDir: string;
  /** TRUST_PROXY: whose X-Forwarded-For names the client (per-client limits, evidence); unset: the socket peer is the client. */
  trustProxy?: string[];
  rateLimits?: Record<string, { points?: number; durationSeconds?: number }>;
  /** Limit counters in the database, shared with other routers (RATE_LIMIT_STORE=postgres). */
  sharedRateLimits: boolean;
  /** SUBSCRIPTION_MAX_LIFETIME_SECONDS: a graphql-ws socket on the router is closed this long after it was accepted. */
  subscriptionMaxLifetimeSeconds: number;
  /** ROUTER_SHARE_INFLIGHT_READS (default on): the router's identical reads in flight share one subgraph call. */
  shareInFlightReads: boolean;
  /** SUPERGRAPH_CACHE_DIR: where the router keeps its compositions (unset: composed every start). */
  supergraphCacheDir?: string;
  /**
   * PUBLIC_BASE_URL was set. Otherwise checkout_url, consent_url and sca_url are made on the
   * address rest-compat actually listens on (REST_PORT, or the free port it picked), so the
   * printed links open whatever port the platform runs on.
   */
  publicBaseUrlSet: boolean;
  /** The payments service's own options from the environment. */
  payments: PaymentsConfig;
  /** The open-banking service's own options from the environment. */
  openBanking: OpenBankingConfig;
  /** The banks service's own options from the environment (INTERNAL_KEY_GRACE_SECONDS, PRIVATE_TARGETS). */
  banks: BanksConfig;
}

/**
 * `npm start`'s configuration. With the demo on (sandbox banks registered with core URLs on
 * loopback, and the demo merchant's webhook receiver there too) the gateway may call loopback
 * and private addresses, unless PRIVATE_TARGETS (or WEBHOOK_PRIVATE_TARGETS) is set either way.
 */
export function loadStartConfig(env: Record<string, string | undefined> = process.env): PlatformConfig {
  const config = loadPlatformConfig(env);
  if (!config.sandboxBanks || privateTargetsSet(env)) return config;
  return {
    ...config,
    payments: { ...config.payments, webhookPrivateTargets: true },
    openBanking: { ...config.openBanking, webhookPrivateTargets: true },
    banks: { ...config.banks, privateTargets: true },
  };
}

export function loadPlatformConfig(env: Record<string, string | undefined> = process.env): PlatformConfig {
  const parsed = loadConfig(platformEnv, env);
  const embedded = !parsed.DATABASE_URL;
  return {
    production: parsed.NODE_ENV === 'production',
    embedded,
    databaseUrl: parsed.DATABASE_URL,
    amqpUrl: parsed.AMQP_URL,
    adminKey: parsed.ADMIN_KEY,
    platformSecret: parsed.PLATFORM_SECRET,
    host: parsed.HOST,
    subgraphHost: parsed.SUBGRAPH_HOST,
    metricsToken: parsed.METRICS_TOKEN,
    ports: {
      rest: parsed.REST_PORT,
      router: parsed.ROUTER_PORT,
      banks: parsed.BANKS_PORT,
      identity: parsed.IDENTITY_PORT,
      payments: parsed.PAYMENTS_PORT,
      openBanking: parsed.OPEN_BANKING_PORT,
    },
    sandboxBanks: parsed.SANDBOX_BANKS ?? embedded,
    sandboxPortBase: parsed.SANDBOX_PORT_BASE,
    dataDir: parsed.DATA_DIR,
    trustProxy: parsed.TRUST_PROXY?.split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    rateLimits: parsed.RATE_LIMITS,
    sharedRateLimits: parsed.RATE_LIMIT_STORE === 'postgres',
    subscriptionMaxLifetimeSeconds: parsed.SUBSCRIPTION_MAX_LIFETIME_SECONDS,
    shareInFlightReads: parsed.ROUTER_SHARE_INFLIGHT_READS,
    supergraphCacheDir: parsed.SUPERGRAPH_CACHE_DIR,
    publicBaseUrlSet: Boolean(env.PUBLIC_BASE_URL),
    payments: paymentsConfigFrom(parsed),
    openBanking: openBankingConfigFrom(parsed),
    banks: banksConfigFrom(parsed),
  };
}
