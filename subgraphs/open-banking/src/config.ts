import type { ServiceEnv } from '@gateway/federation';
import { z } from '@gateway/kernel';
import { DEFAULT_PUBLIC_BASE_URL } from './settings';

/** The open-banking service's own environment when it runs alone (the launcher passes payments' PUBLIC_BASE_URL). */
export const openBankingEnvSchema = z.object({ PUBLIC_BASE_URL: z.url().default(DEFAULT_PUBLIC_BASE_URL) });

export const openBankingEnv: ServiceEnv<typeof openBankingEnvSchema, { publicBaseUrl: string }> = {
  schema: openBankingEnvSchema,
  options: (env) => ({ publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/$/, '') }),
};
