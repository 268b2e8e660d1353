import { GatewayError, type Principal } from '@gateway/kernel';
import type { VaultEm } from './authenticate';
import type { OperationSummary } from './operation';
import { limitCostsOf, type RateLimiter, type RateLimitVerdict } from './rate-limit';
import { tokenRequestClient } from './token-client';

/** What charging an operation answers: the X-RateLimit headers, and the refusal when over budget. */
export interface LimitCharge {
  headers: Record<string, string>;
  refusal?: GatewayError;
}

export interface LimitCharges {
  /**
   * Charges a client's operation (never a service's: admission skips those) before validation and
   * planning; synchronously when nothing waits (limits in memory, no token request to look up).
   */
  operation(principal: Principal, operation: OperationSummary): LimitCharge | Promise<LimitCharge>;
  /** Charges a graphql-ws subscribe; undefined: allowed. */
  subscribe(principal: Principal): Promise<GatewayError | undefined>;
}

/**
 * The edge's rate-limit stage: a document costs what it asks for (one point per root field
 * selection), and one asking more than is left is refused whole, unexecuted, with the headers
 * saying how much is left and when the window resets.
 */
export function createLimitCharges(limiter: RateLimiter, vaultEm: VaultEm): LimitCharges {
  return {
    operation(principal, operation) {
      const costs = limitCostsOf(operation.type, operation.fields);
      const chargeTo = (client: string | undefined): LimitCharge | Promise<LimitCharge> => {
        const verdict = limiter.check(costs, principal, client);
        return verdict instanceof Promise ? verdict.then(chargeOf) : chargeOf(verdict);
      };
      // The OAuth client (TPP) a request is charged to: the token request's, or an access token's own TPP.
      if (costs.ob_token !== undefined) return tokenRequestClient(vaultEm(), operation).then(chargeTo);
      return chargeTo(principal.kind === 'ob_token' ? principal.clientId : undefined);
    },
    // One `read` point per subscribe (its selection runs at once); events pushed afterwards are
    // the platform's work, not the subscriber's requests, and cost nothing.
    async subscribe(principal) {
      if (principal.kind === 'service') return undefined;
      const verdict = await limiter.check({ read: 1 }, principal);
      return verdict.allowed
        ? undefined
        : new GatewayError(
            'RATE_LIMITED',
            `limit of ${verdict.limit} requests reached; retry in ${verdict.resetSeconds} s`,
          );
    },
  };
}

/** The X-RateLimit headers of a verdict, and its refusal when over budget. */
function chargeOf(verdict: RateLimitVerdict): LimitCharge {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(verdict.limit),
    'x-ratelimit-remaining': String(verdict.remaining),
    'x-ratelimit-reset': String(verdict.resetSeconds),
  };
  if (verdict.allowed) return { headers };
  headers['retry-after'] = String(verdict.resetSeconds);
  return { headers, refusal: new GatewayError('RATE_LIMITED', refusalDetail(verdict)) };
}

/** Why a request was refused: for a document costing several points, what it cost and what to do. */
function refusalDetail(verdict: RateLimitVerdict): string {
  if (!verdict.cost || verdict.cost <= 1)
    return `limit of ${verdict.limit} requests reached; retry in ${verdict.resetSeconds} s`;
  const advice =
    verdict.cost > verdict.limit
      ? `the limit is ${verdict.limit} per window: split the operation`
      : `${verdict.remaining} of ${verdict.limit} left; retry in ${verdict.resetSeconds} s`;
  return `this operation costs ${verdict.cost} points of the ${verdict.limitClass} limit (one per root field and per field read from a bank core, aliases included); ${advice}`;
}
