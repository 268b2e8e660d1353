import type { ServiceEnv } from '@gateway/federation';
import { egressEnvSchema, privateTargetsFrom, z } from '@gateway/kernel';

/** API-CONTRACT "Configuration": a rotated internal key is still accepted on bank callbacks this long (a day). */
export const DEFAULT_INTERNAL_KEY_GRACE_SECONDS = 86_400;

/** The banks service's own variables, shared with the launcher. */
export const banksEnvSchema = z.object({
  ...egressEnvSchema.shape,
  /** 0: the old key stops working at once; at most 30 days (a leaked key must not live on for long). */
  INTERNAL_KEY_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .default(DEFAULT_INTERNAL_KEY_GRACE_SECONDS),
});

/** The banks options an environment sets. */
export interface BanksConfig {
  /** INTERNAL_KEY_GRACE_SECONDS: how long a rotated internal key is still accepted on the core's callbacks. */
  internalKeyGraceSeconds: number;
  /** PRIVATE_TARGETS (or WEBHOOK_PRIVATE_TARGETS): a bank's core URLs may name a loopback, private or link-local host. */
  privateTargets: boolean;
}

export const banksConfigFrom = (env: z.infer<typeof banksEnvSchema>): BanksConfig => ({
  internalKeyGraceSeconds: env.INTERNAL_KEY_GRACE_SECONDS,
  privateTargets: privateTargetsFrom(env),
});

export const banksEnv: ServiceEnv<typeof banksEnvSchema, BanksConfig> = {
  schema: banksEnvSchema,
  options: banksConfigFrom,
};
