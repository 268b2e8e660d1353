import type { ServiceEnv } from '@gateway/federation';
import { z } from '@gateway/kernel';
import { DEFAULT_PUBLIC_BASE_URL } from './settings';

/** How long a payment order waits in PENDING_SCA for the customer before it FAILS (SCA_EXPIRED), by default. */
export const DEFAULT_SCA_TTL_SECONDS = 900;

/** open-banking's own variables, shared with the launcher (which also parses payments' PUBLIC_BASE_URL). */
export const openBankingOwnEnvSchema = z.object({
  SCA_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(DEFAULT_SCA_TTL_SECONDS),
});

/** The open-banking service's environment when it runs alone (the launcher passes payments' PUBLIC_BASE_URL). */
export const openBankingEnvSchema = openBankingOwnEnvSchema.extend({ PUBLIC_BASE_URL: z.url().default(DEFAULT_PUBLIC_BASE_URL) });

/** The open-banking options an environment sets. */
export const openBankingConfigFrom = (env: z.infer<typeof openBankingOwnEnvSchema>): { scaTtlMs: number } => ({ scaTtlMs: env.SCA_TTL_SECONDS * 1000 });

export const openBankingEnv: ServiceEnv<typeof openBankingEnvSchema, { publicBaseUrl: string; scaTtlMs: number }> = {
  schema: openBankingEnvSchema,
  options: (env) => ({ publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/$/, ''), ...openBankingConfigFrom(env) }),
};
