import type { ServiceEnv } from '@gateway/federation';
import { egressEnvSchema, envFlag, privateTargetsFrom, z } from '@gateway/kernel';
import { DEFAULT_MAX_CORE_CALLS_PER_REQUEST } from './account/core-reads';
import { DEFAULT_PUBLIC_BASE_URL } from './settings';
import { publicJwksRule, type PublicJwks } from './signing-keys/jwks';

/** How long a payment order waits in PENDING_SCA for the customer before it FAILS (SCA_EXPIRED), by default. */
export const DEFAULT_SCA_TTL_SECONDS = 900;

/**
 * OB_DIRECTORY_JWKS: a JSON JWK Set of the directory's public signing keys (the software
 * statements' signers), checked as a TPP's keys are; unset or empty: no dynamic registration.
 */
const directoryJwksVariable = z
  .string()
  .optional()
  .transform((text, ctx): PublicJwks | undefined => {
    if (!text?.trim()) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON JWK Set: {"keys": [...]}' });
      return z.NEVER;
    }
    const parsed = publicJwksRule.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || 'jwks'}: ${issue.message}` });
    return z.NEVER;
  });

/** open-banking's own variables, shared with the launcher (which also parses payments' PUBLIC_BASE_URL). */
export const openBankingOwnEnvSchema = z.object({
  ...egressEnvSchema.shape,
  SCA_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(DEFAULT_SCA_TTL_SECONDS),
  OB_MAX_CORE_CALLS_PER_REQUEST: z.coerce.number().int().min(1).max(1_000).default(DEFAULT_MAX_CORE_CALLS_PER_REQUEST),
  OB_DIRECTORY_JWKS: directoryJwksVariable,
  /** Every DPoP proof must carry a server nonce (RFC 9449 8): unset, in production only. The router reads it too. */
  DPOP_NONCE_REQUIRED: envFlag.optional(),
});

/** The open-banking service's environment when it runs alone (the launcher passes payments' PUBLIC_BASE_URL). */
export const openBankingEnvSchema = openBankingOwnEnvSchema.extend({
  PUBLIC_BASE_URL: z.url().default(DEFAULT_PUBLIC_BASE_URL),
});

/** The open-banking options an environment sets. */
export const openBankingConfigFrom = (env: z.infer<typeof openBankingOwnEnvSchema>): OpenBankingConfig => ({
  scaTtlMs: env.SCA_TTL_SECONDS * 1000,
  webhookPrivateTargets: privateTargetsFrom(env),
  maxCoreCallsPerRequest: env.OB_MAX_CORE_CALLS_PER_REQUEST,
  ...(env.OB_DIRECTORY_JWKS ? { directoryJwks: env.OB_DIRECTORY_JWKS } : {}),
  ...(env.DPOP_NONCE_REQUIRED !== undefined ? { dpopNoncesRequired: env.DPOP_NONCE_REQUIRED } : {}),
});

/** The open-banking options the launcher's environment sets. */
export interface OpenBankingConfig {
  scaTtlMs: number;
  /** PRIVATE_TARGETS (or WEBHOOK_PRIVATE_TARGETS): a TPP's webhook_url and the bank cores read may be on loopback, private and link-local addresses. */
  webhookPrivateTargets: boolean;
  /** OB_MAX_CORE_CALLS_PER_REQUEST: bank-core reads one GraphQL request may make (account data). */
  maxCoreCallsPerRequest: number;
  /** OB_DIRECTORY_JWKS: the directory's keys; dynamic client registration is enabled only with them. */
  directoryJwks?: PublicJwks;
  /** DPOP_NONCE_REQUIRED: every DPoP proof must carry a server nonce; unset, in production only. */
  dpopNoncesRequired?: boolean;
}

export const openBankingEnv: ServiceEnv<typeof openBankingEnvSchema, OpenBankingConfig & { publicBaseUrl: string }> = {
  schema: openBankingEnvSchema,
  options: (env) => ({ publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/$/, ''), ...openBankingConfigFrom(env) }),
};
