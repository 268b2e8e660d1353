import type { Knex } from '@mikro-orm/knex';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { clientKeyOf, type Principal } from '@gateway/kernel';

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
  // Public and answers the alias's IBAN: a look-up in the directory like resolveAlias, not a read.
  alias: 'identity_resolve',
  exchangeAuthorizationCode: 'ob_token',
  refreshAccessToken: 'ob_token',
  requestClientCredentialsToken: 'ob_token',
  // Issue 49: the authorization server's other client-authenticated endpoints (POST /ob/par, /ob/revoke).
  pushAuthorizationRequest: 'ob_token',
  revokeToken: 'ob_token',
  createPaymentOrder: 'payment_order_create',
};

export function limitClassesOf(
  operation: 'query' | 'mutation' | 'subscription',
  rootFields: readonly string[],
): LimitClassName[] {
  return [...new Set(rootFields.map((field) => limitClassOf(operation, field)))];
}

/** The limit class one root field selection spends. */
function limitClassOf(operation: 'query' | 'mutation' | 'subscription', rootField: string): LimitClassName {
  return ROOT_FIELD_CLASS[rootField] ?? (operation === 'mutation' ? 'write' : 'read');
}

/** Points an operation spends, per limit class. */
export type LimitCosts = Partial<Record<LimitClassName, number>>;

/** A root field selection as the edge sees it: its name and arguments (variables substituted). */
export interface CostedField {
  name: string;
  args?: Record<string, unknown>;
  /** What one selection costs (default 1): more when bank-core calls are selected under it (core-cost.ts). */
  points?: number;
}

/**
 * What one GraphQL operation costs (issue 13, "cost, not requests"): one point of its limit class
 * per root field selection, each alias counted, so a document never does more work than the
 * same calls one by one over REST would be allowed (200 aliases of resolveAlias used to cost one
 * point of the public 600/min). A root field given a list of keys (an argument whose value is a
 * list) costs one point per key of its longest list; no field of today's schemas takes one, the
 * rule is there so that adding one cannot reopen the hole. A selection priced higher for the
 * bank-core calls under it (`points`, core-cost.ts) costs that much per key.
 */
export function limitCostsOf(operation: 'query' | 'mutation' | 'subscription', fields: CostedField[]): LimitCosts {
  const costs: LimitCosts = {};
  // Loops, not entries/reduce: run for every request the edge admits.
  for (const field of fields) {
    const name = limitClassOf(operation, field.name);
    let keys = 1;
    for (const argument in field.args) {
      const value = field.args[argument];
      if (Array.isArray(value)) keys = Math.max(keys, value.length);
    }
    costs[name] = (costs[name] ?? 0) + keys * (field.points ?? 1);
  }
  return costs;
}

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** The class reported, and the points the request asked of it (for the refusal's detail). */
  limitClass?: LimitClassName;
  cost?: number;
}

export interface RateLimiter {
  /**
   * Spends `costs` (a list of classes: one point each), all or nothing: a request asking more
   * points of any class than are left is refused and spends nothing, in no class.
   * `client`: the OAuth client of a token request (classes limited `by: 'client'`).
   */
  check(
    costs: LimitClassName[] | LimitCosts,
    principal: Principal,
    client?: string,
  ): RateLimitVerdict | Promise<RateLimitVerdict>;
}

function keyOf(spec: LimitClass, principal: Principal, client: string | undefined): string {
  if (spec.by === 'client' && client) return `client:${client}`;
  if (spec.by !== 'principal' || principal.kind === 'anonymous') return `ip:${clientKeyOf(principal.ip)}`;
  // An access token's principal is its consent (ob_token:con_…): the contract's "GET 300/min per
  // token" is counted over every access token of the consent, so a refresh (a new at_ each time)
  // never buys a fresh budget, and one consent cannot starve another's.
  return `${principal.kind}:${principal.id}`;
}

/** What a budget answers a request for points: allowed or not, what is left, when the window ends. */
export interface Taken {
  allowed: boolean;
  remaining: number;
  msBeforeNext: number;
}

/** One class's counters, whatever their store. A refused take spends nothing. In memory a take answers at once. */
export interface Budget {
  take(key: string, points: number): Taken | Promise<Taken>;
  /** Gives back the points of an allowed take (a request refused whole by another class). */
  giveBack(key: string, points: number): Promise<void>;
}

/** rate-limiter-flexible's limiter as a Budget: its refused consume counts, so it is given back at once. */
export function budgetOf(limiter: RateLimiterAbstract, limit: number): Budget {
  return {
    async take(key, points) {
      try {
        const result = await limiter.consume(key, points);
        return { allowed: true, remaining: result.remainingPoints, msBeforeNext: result.msBeforeNext };
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        await limiter.reward(key, points);
        // What is left without this request, as it spends nothing.
        return {
          allowed: false,
          remaining: Math.max(0, limit - (refusal.consumedPoints - points)),
          msBeforeNext: refusal.msBeforeNext,
        };
      }
    },
    async giveBack(key, points) {
      await limiter.reward(key, points);
    },
  };
}

/**
 * A class's counters in this process (embedded mode, one router): a window per key opened by its
 * first take and `durationSeconds` long, as rate-limiter-flexible's memory limiter counts, but
 * answered at once. The edge takes from one on every request, and the library's promise, result
 * object and timer per window cost more than the count itself (issue 32: the router's CPU per
 * request). Windows all last as long, so the map holds them in the order they end: each new window
 * first drops the ended ones at its front.
 */
export function memoryBudget(limit: number, durationSeconds: number): Budget {
  const windows = new Map<string, { spent: number; endsAt: number }>();
  return {
    take(key, points) {
      const now = Date.now();
      let window = windows.get(key);
      if (!window || window.endsAt <= now) {
        for (const [ended, { endsAt }] of windows) {
          if (endsAt > now) break;
          windows.delete(ended);
        }
        window = { spent: 0, endsAt: now + durationSeconds * 1000 };
        windows.set(key, window);
      }
      const allowed = window.spent + points <= limit;
      if (allowed) window.spent += points;
      return { allowed, remaining: limit - window.spent, msBeforeNext: window.endsAt - now };
    },
    async giveBack(key, points) {
      const window = windows.get(key);
      if (window && window.endsAt > Date.now()) window.spent = Math.max(0, window.spent - points);
    },
  };
}

/**
 * A shared budget (PostgreSQL) taken a few points ahead: a router claims its request's points plus
 * up to 1% of the limit (at most 100) in one statement and spends the rest here, without a
 * statement per request on one row that every request of a busy caller would wait for. The shared
 * counter counts claims, so all routers together still allow at most the limit; what a router
 * claimed and did not spend is lost when the window ends (at most 1% of the limit per router).
 * Limits under 200 per window are counted exactly, a statement per request, as before.
 */
export function takenAhead(shared: Budget, limit: number): Budget {
  const ahead = Math.min(100, Math.floor(limit / 100));
  if (ahead < 2) return shared;
  const held = new Map<string, { left: number; until: number; remaining: number }>();
  return {
    async take(key, points) {
      const now = Date.now();
      let mine = held.get(key);
      if (mine && mine.until <= now) {
        held.delete(key);
        mine = undefined;
      }
      if (mine && mine.left >= points) {
        mine.left -= points;
        return { allowed: true, remaining: mine.remaining + mine.left, msBeforeNext: mine.until - now };
      }
      // What is held here counts; near the limit the claim ahead is refused: then exactly what is missing.
      const have = mine?.left ?? 0;
      const missing = points - have;
      let claimed = await shared.take(key, missing + ahead);
      let extra = ahead;
      if (!claimed.allowed) {
        claimed = await shared.take(key, missing);
        extra = 0;
        if (!claimed.allowed) return { ...claimed, remaining: claimed.remaining + have };
      }
      if (held.size >= 10_000) for (const [other, hold] of held) if (hold.until <= now) held.delete(other);
      held.set(key, { left: extra, until: now + claimed.msBeforeNext, remaining: claimed.remaining });
      return { allowed: true, remaining: claimed.remaining + extra, msBeforeNext: claimed.msBeforeNext };
    },
    async giveBack(key, points) {
      const mine = held.get(key);
      if (mine && mine.until > Date.now()) mine.left += points;
      else await shared.giveBack(key, points);
    },
  };
}

/**
 * One limiter per class, in memory (embedded mode, one process) or in PostgreSQL (several router
 * instances share the counters, taken a few points ahead: takenAhead); a database hiccup falls
 * back to memory rather than refusing.
 */
export async function createRateLimiter(overrides: LimitOverrides = {}, store?: Knex): Promise<RateLimiter> {
  const limiters = new Map<LimitClassName, { budget: Budget; spec: LimitClass }>();
  if (store) await store.raw('create schema if not exists "router"');
  for (const name of Object.keys(DEFAULT_LIMITS) as LimitClassName[]) {
    const spec: LimitClass = { ...DEFAULT_LIMITS[name], ...overrides[name] };
    const base = { keyPrefix: name, points: spec.points, duration: spec.durationSeconds };
    if (!store) {
      limiters.set(name, { budget: memoryBudget(spec.points, spec.durationSeconds), spec });
      continue;
    }
    // A database hiccup falls back to the library's memory limiter (its insurance) rather than refusing.
    const memory = new RateLimiterMemory(base);
    const limiter = await new Promise<RateLimiterAbstract>((resolve, reject) => {
      const pg: RateLimiterPostgres = new RateLimiterPostgres(
        {
          ...base,
          storeClient: store,
          storeType: 'knex',
          schemaName: 'router',
          tableName: 'rate_limits',
          insuranceLimiter: memory,
        },
        (error?: Error) => (error ? reject(error) : resolve(pg)),
      );
    });
    limiters.set(name, { budget: takenAhead(budgetOf(limiter, spec.points), spec.points), spec });
  }

  return {
    // Synchronous while every budget answers at once (in memory): an async step would cost each
    // request promises (issue 32); a budget in PostgreSQL goes on when its take is answered.
    check(request, principal, client) {
      const costs: LimitCosts = Array.isArray(request) ? Object.fromEntries(request.map((name) => [name, 1])) : request;
      const names = Object.keys(costs) as LimitClassName[];
      const spent: Array<{ budget: Budget; key: string; points: number }> = [];
      let verdict: RateLimitVerdict | undefined;
      // Counts one class's take; false when it refused (the request is refused whole).
      const counted = (
        name: LimitClassName,
        spec: LimitClass,
        budget: Budget,
        key: string,
        cost: number,
        taken: Taken,
      ) => {
        if (taken.allowed) spent.push({ budget, key, points: cost });
        const current: RateLimitVerdict = {
          allowed: taken.allowed,
          limit: spec.points,
          remaining: Math.max(0, taken.remaining),
          resetSeconds: Math.ceil(taken.msBeforeNext / 1000),
          limitClass: name,
          cost,
        };
        // Report the tightest class; a refusal in any class refuses the request.
        if (!verdict || !current.allowed || (verdict.allowed && current.remaining < verdict.remaining))
          verdict = current;
        return taken.allowed;
      };
      const finished = (): RateLimitVerdict | Promise<RateLimitVerdict> => {
        const answer = verdict ?? {
          allowed: true,
          limit: DEFAULT_LIMITS.read.points,
          remaining: DEFAULT_LIMITS.read.points,
          resetSeconds: DEFAULT_LIMITS.read.durationSeconds,
        };
        // Refused whole: nothing runs, so no class keeps the points of this request.
        if (answer.allowed) return answer;
        return Promise.all(spent.map(({ budget, key, points }) => budget.giveBack(key, points))).then(() => answer);
      };
      const from = (first: number): RateLimitVerdict | Promise<RateLimitVerdict> => {
        for (let i = first; i < names.length; i += 1) {
          const name = names[i]!;
          const cost = costs[name];
          if (!cost || cost < 1) continue;
          const { budget, spec } = limiters.get(name)!;
          const key = keyOf(spec, principal, client);
          const taken = budget.take(key, cost);
          if (taken instanceof Promise)
            return taken.then((answer) => (counted(name, spec, budget, key, cost, answer) ? from(i + 1) : finished()));
          if (!counted(name, spec, budget, key, cost, taken)) break;
        }
        return finished();
      };
      return from(0);
    },
  };
}
