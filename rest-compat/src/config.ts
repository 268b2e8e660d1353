import {
  envDrainSeconds,
  envMetricsToken,
  envPort,
  loadConfig,
  requireMetricsTokenInProduction,
  z,
} from '@gateway/kernel';

/** `npm run start:rest-compat`'s environment, validated at once. */
export const restCompatEnv = z.object({
  ROUTER_URL: z.url().default('http://127.0.0.1:4000'),
  REST_PORT: envPort.default(8080),
  HOST: z.string().default('127.0.0.1'),
  ROUTER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
  /** Comma-separated proxies in front of rest-compat whose X-Forwarded-For is trusted ('loopback', CIDRs). */
  TRUST_PROXY: z.string().optional(),
  NODE_ENV: z.string().optional(),
  SHUTDOWN_DRAIN_SECONDS: envDrainSeconds,
  /** The address clients use, when it is not this layer's own (a proxy in front): the server named in /openapi.json. */
  PUBLIC_BASE_URL: z.url().optional(),
  METRICS_TOKEN: envMetricsToken,
});

export interface RestCompatConfig {
  routerUrl: string;
  port: number;
  host: string;
  routerTimeoutMs: number;
  trustProxy?: string[];
  production: boolean;
  /** Seconds of /readyz 503 after SIGTERM before the server closes (the balancer drains it meanwhile). */
  drainSeconds: number;
  publicBaseUrl?: string;
  /** The bearer token /metrics asks for (required in production). */
  metricsToken?: string;
}

export function loadRestCompatConfig(env: Record<string, string | undefined> = process.env): RestCompatConfig {
  const parsed = loadConfig(restCompatEnv.superRefine(requireMetricsTokenInProduction), env);
  return {
    routerUrl: parsed.ROUTER_URL,
    port: parsed.REST_PORT,
    host: parsed.HOST,
    routerTimeoutMs: parsed.ROUTER_TIMEOUT_MS,
    trustProxy: parsed.TRUST_PROXY?.split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    production: parsed.NODE_ENV === 'production',
    drainSeconds: parsed.SHUTDOWN_DRAIN_SECONDS,
    publicBaseUrl: parsed.PUBLIC_BASE_URL,
    metricsToken: parsed.METRICS_TOKEN,
  };
}
