import { envFlag, z } from '@gateway/kernel';
import { DEFAULT_MAX_LIFETIME_SECONDS } from './subscriptions/credential-sweep';

/**
 * The router's own environment, read the same by `npm run start:router` (main.ts) and the
 * one-process launcher (platform/src/config.ts).
 */
export const routerEnvSchema = z.object({
  /**
   * A graphql-ws socket is closed this long after it was accepted (close code 1000, reason
   * "maximum connection lifetime reached"); clients reconnect and authenticate afresh.
   */
  SUBSCRIPTION_MAX_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(2_592_000)
    .default(DEFAULT_MAX_LIFETIME_SECONDS),
  /**
   * Identical read-only subgraph fetches in flight at the same moment (same subgraph, principal,
   * document and variables) share one call (router/src/in-flight.ts); never a mutation or a
   * subscription. On by default; off: every fetch is its own call.
   */
  ROUTER_SHARE_INFLIGHT_READS: envFlag.default(true),
  /**
   * Every DPoP proof must carry a server nonce (RFC 9449 8): unset, in production only. Read by
   * open-banking too (its token and PAR endpoints): both must say the same.
   */
  DPOP_NONCE_REQUIRED: envFlag.optional(),
});
