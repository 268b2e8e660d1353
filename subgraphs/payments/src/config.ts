import type { ServiceEnv } from '@gateway/federation';
import { egressEnvSchema, envSecondsList, privateTargetsFrom, z } from '@gateway/kernel';
import { DEFAULT_SETTLEMENT_INTERVAL_SECONDS } from './settlement/settlement.settings';
import { DEFAULT_PUBLIC_BASE_URL, DEFAULT_SESSION_TTL_SECONDS } from './settings';

/**
 * The payments service's own environment. The variables every service reads (DATABASE_URL,
 * PLATFORM_SECRET, ...) are @gateway/federation's; the launcher parses these together with its own.
 */
export const paymentsEnvSchema = z.object({
  ...egressEnvSchema.shape,
  PUBLIC_BASE_URL: z.url().default(DEFAULT_PUBLIC_BASE_URL),
  SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(DEFAULT_SESSION_TTL_SECONDS),
  WEBHOOK_RETRY_SCHEDULE: envSecondsList.optional(),
  SETTLEMENT_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(31_622_400)
    .default(DEFAULT_SETTLEMENT_INTERVAL_SECONDS),
});

/** What the environment sets of the payments start options. */
export interface PaymentsConfig {
  /** Base of checkout_url, without a trailing slash. */
  publicBaseUrl: string;
  sessionTtlSeconds: number;
  /** Pauses between webhook retries in seconds; unset: the built-in schedule (about 52 hours). */
  webhookRetryScheduleSeconds?: number[];
  /** A settlement cycle runs this often; 0: only on demand (POST /settlement/cycles). */
  settlementIntervalSeconds: number;
  /** PRIVATE_TARGETS (or WEBHOOK_PRIVATE_TARGETS): webhooks and bank cores may be on loopback, private and link-local addresses. */
  webhookPrivateTargets: boolean;
}

export const paymentsConfigFrom = (env: z.infer<typeof paymentsEnvSchema>): PaymentsConfig => ({
  publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/$/, ''),
  sessionTtlSeconds: env.SESSION_TTL_SECONDS,
  webhookRetryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE,
  settlementIntervalSeconds: env.SETTLEMENT_INTERVAL_SECONDS,
  webhookPrivateTargets: privateTargetsFrom(env),
});

/** For `npm run start:payments` (runStandalone). */
export const paymentsEnv: ServiceEnv<typeof paymentsEnvSchema, PaymentsConfig> = {
  schema: paymentsEnvSchema,
  options: paymentsConfigFrom,
};
