import type { Knex } from '@mikro-orm/knex';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Principal } from '@gateway/kernel';

export interface LimitClass {
  points: number;
  durationSeconds: number;
  /**
   * Whose budget a request spends: the caller's credential, the client IP for public calls, or
   * the OAuth client (TPP) a public token request is for, by IP when it is not known.
   */
  by: 'principal' | 'ip' | 'client';
}

/** The spec's "Limits" table; `write` covers mutations the table does not name. */
export const DEFAULT_LIMITS = {
  session_create: { points: 100, durationSeconds: 60, by: 'principal' },
  read: { points: 300, durationSeconds: 60, by: 'principal' },
  ob_token: { points: 30, durationSeconds: 60, by: 'client' },
  // Contract: POST /ob/payment-orders 100/min per TPP, whichever consent's access token it uses.
  payment_order_create: { points: 100, durationSeconds: 60, by: 'client' },
  identity_resolve: { points: 600, durationSeconds: 60, by: 'ip' },
  write: { points: 300, durationSeconds: 60, by: 'principal' },
} satisfies Record<string, LimitClass>;

export type LimitClassName = keyof typeof DEFAULT_LIMITS;
export type LimitOverrides = Partial<Record<LimitClassName, Partial<LimitClass>>>;

/** Root fields with a limit of their own; every other query field is `read`, every other mutation `write`. */
const ROOT_FIELD_CLASS: Record<string, LimitClassName> = {
  createPaymentSession: 'session_create',
  resolveAlias: 'identity_resolve',
  exchangeAuthorizationCode: 'ob_token',
  refreshAccessToken: 'ob_token',
  createPaymentOrder: 'payment_order_create',
};

export function limitClassesOf(operation: 'query' | 'mutation' | 'subscription', rootFields: string[]): LimitClassName[] {
  const fallback: LimitClassName = operation === 'mutation' ? 'write' : 'read';
  return [...new Set(rootFields.map((field) => ROOT_FIELD_CLASS[field] ?? fallback))];
}

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  /** `client`: the OAuth client of a token request (classes limited `by: 'client'`). */
  check(classes: LimitClassName[], principal: Principal, client?: string): Promise<RateLimitVerdict>;
}

function keyOf(spec: LimitClass, principal: Principal, client: string | undefined): string {
  if (spec.by === 'client' && client) return `client:${client}`;
  if (spec.by !== 'principal' || principal.kind === 'anonymous') return `ip:${principal.ip ?? 'unknown'}`;
  // An access token's principal is its consent (ob_token:con_…): the contract's "GET 300/min per
  // token" is counted over every access token of the consent, so a refresh (a new at_ each time)
  // never buys a fresh budget, and one consent cannot starve another's.
  return `${principal.kind}:${principal.id}`;
}

/**
 * One limiter per class, in memory (embedded mode, one process) or in PostgreSQL (several router
 * instances share the counters); a database hiccup falls back to memory rather than refusing.
 */
export async function createRateLimiter(overrides: LimitOverrides = {}, store?: Knex): Promise<RateLimiter> {
  const limiters = new Map<LimitClassName, { limiter: RateLimiterAbstract; spec: LimitClass }>();
  if (store) await store.raw('create schema if not exists "router"');
  for (const name of Object.keys(DEFAULT_LIMITS) as LimitClassName[]) {
    const spec: LimitClass = { ...DEFAULT_LIMITS[name], ...overrides[name] };
    const base = { keyPrefix: name, points: spec.points, duration: spec.durationSeconds };
    const memory = new RateLimiterMemory(base);
    const limiter = store
      ? await new Promise<RateLimiterAbstract>((resolve, reject) => {
          const pg: RateLimiterPostgres = new RateLimiterPostgres(
            { ...base, storeClient: store, storeType: 'knex', schemaName: 'router', tableName: 'rate_limits', insuranceLimiter: memory },
            (error?: Error) => (error ? reject(error) : resolve(pg)),
          );
        })
      : memory;
    limiters.set(name, { limiter, spec });
  }

  return {
    async check(classes, principal, client) {
      let verdict: RateLimitVerdict | undefined;
      for (const name of classes) {
        const { limiter, spec } = limiters.get(name)!;
        const key = keyOf(spec, principal, client);
        let result: RateLimiterRes;
        let allowed = true;
        try {
          result = await limiter.consume(key);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          result = rejection;
          allowed = false;
        }
        const current: RateLimitVerdict = {
          allowed,
          limit: spec.points,
          remaining: Math.max(0, result.remainingPoints),
          resetSeconds: Math.ceil(result.msBeforeNext / 1000),
        };
        // Report the tightest class; a refusal in any class refuses the request.
        if (!verdict || !current.allowed || (verdict.allowed && current.remaining < verdict.remaining)) verdict = current;
        if (!allowed) break;
      }
      return verdict ?? { allowed: true, limit: DEFAULT_LIMITS.read.points, remaining: DEFAULT_LIMITS.read.points, resetSeconds: DEFAULT_LIMITS.read.durationSeconds };
    },
  };
}
