import { GatewayError, worldOf, type EgressPolicy, type Logger, type World } from '@gateway/kernel';
import type { Registry } from 'prom-client';
import { normalizeBaseUrl } from './base-url';
import { createBankCoreClient } from './client';
import type { BankCoreClient } from './types';

/** A core client that says which world it moves money in; the pool hands out nothing else. */
export type WorldCoreClient<W extends World = World> = BankCoreClient & { readonly world: W };

/** What a pool needs to know of a bank to call its cores (the banks subgraph's bankRouting). */
export interface CoreAddress {
  handle: string;
  institutionCode: string;
  coreBaseUrl: string;
  internalKey: string;
  /** The bank's own test core, when it registered one; else the built-in test bank answers for it. */
  sandboxCoreBaseUrl?: string | null;
  sandboxInternalKey?: string | null;
}

/** The gateway's built-in test bank: a test core for any bank handle (packages/bank-sandbox startTestBanks). */
export interface BuiltInTestCores {
  core(bank: { handle: string; institutionCode: string }): { baseUrl: string; internalKey: string };
}

/** For a schema built only to be printed: a test core asked for anyway is refused (never a live one). */
export const NO_TEST_CORES: BuiltInTestCores = {
  core: (bank) => {
    throw new GatewayError('INTERNAL_ERROR', `no test bank runs here for ${bank.handle}`);
  },
};

/** Deadlines every client of one pool shares: each caller's calls must fit its own budget (a lease, a page's wait). */
export interface BankCorePoolSettings {
  timeoutMs: number;
  attempts: number;
  /** Upper bound of one call including its retries. */
  budgetMs: number;
  production: boolean;
  /**
   * PRIVATE_TARGETS: where a bank's core_base_url and sandbox_core_base_url may be reached, the
   * policy webhooks go by (a refused target fails as an unreachable core). The built-in test
   * bank, served by this process on loopback, is the gateway's own and not judged by it.
   */
  egress: EgressPolicy;
  logger: Logger;
  /** The service's registry, which /metrics serves: every client's call metrics go there (labelled by bank). */
  metrics?: Registry;
  /** Where test objects go when a bank has no sandbox core of its own. */
  testCores: BuiltInTestCores;
}

/**
 * The one place that hands out bank-core clients, one per bank, world, core URL and key (a
 * changed registration gets a new client). The world is part of every ask, so no caller can
 * forget it: a test object gets a client of the bank's sandbox core or of the built-in test bank,
 * never of its live core_base_url, whatever the registration says. Payments' engine and
 * open-banking's reads each keep one pool with their own deadlines.
 */
export class BankCorePool {
  private readonly clients = new Map<string, WorldCoreClient>();

  constructor(private readonly settings: BankCorePoolSettings) {}

  for<W extends World>(bank: CoreAddress, world: W): WorldCoreClient<W> {
    const target =
      world === 'live'
        ? { baseUrl: bank.coreBaseUrl, internalKey: bank.internalKey, builtIn: false }
        : this.testTarget(bank);
    const key = `${world}\n${bank.handle}\n${target.baseUrl}\n${target.internalKey}`;
    let client = this.clients.get(key);
    if (!client) {
      const created = createBankCoreClient({
        bankHandle: world === 'live' ? bank.handle : `${bank.handle}:test`,
        baseUrl: target.baseUrl,
        internalKey: target.internalKey,
        timeoutMs: this.settings.timeoutMs,
        retry: { attempts: this.settings.attempts, baseDelayMs: 100, maxDelayMs: 1_000 },
        totalBudgetMs: this.settings.budgetMs,
        // The built-in test bank is served by this process on loopback: no TLS to ask of it.
        production: this.settings.production && !target.builtIn,
        ...(target.builtIn ? {} : { egress: this.settings.egress }),
        logger: this.settings.logger,
        metrics: this.settings.metrics,
      });
      client = Object.assign(created, { world });
      this.clients.set(key, client);
    }
    return client as WorldCoreClient<W>;
  }

  /**
   * Whether `for(bank, world)` is the built-in test bank, whose accounts open on first use in
   * the currency of that use (a read opens one too): what an account is held in means nothing
   * there before money moved through it.
   */
  isBuiltInTestBank(bank: CoreAddress, world: World): boolean {
    return world === 'test' && !(bank.sandboxCoreBaseUrl && bank.sandboxInternalKey);
  }

  private testTarget(bank: CoreAddress): { baseUrl: string; internalKey: string; builtIn: boolean } {
    if (bank.sandboxCoreBaseUrl && bank.sandboxInternalKey) {
      if (normalizeBaseUrl(bank.sandboxCoreBaseUrl) === normalizeBaseUrl(bank.coreBaseUrl)) {
        // Registration refuses this; a row that says it anyway must not route test money live.
        this.settings.logger.error(
          { bank: bank.handle },
          'DEFECT: sandbox core of a bank is its live core; test call refused',
        );
        throw new GatewayError('INTERNAL_ERROR', `the test core of bank ${bank.handle} is its live core`);
      }
      return { baseUrl: bank.sandboxCoreBaseUrl, internalKey: bank.sandboxInternalKey, builtIn: false };
    }
    return { ...this.settings.testCores.core(bank), builtIn: true };
  }
}

/**
 * The second check, where money is about to move (engine, settler, settlement): a client of
 * another world than the object's is a defect, reported and refused, never called.
 */
export function assertSameWorld(
  client: { world: World },
  object: { livemode: boolean },
  what: string,
  logger: Logger,
): void {
  if (client.world === worldOf(object)) return;
  logger.error(
    { object: what, client_world: client.world, livemode: object.livemode },
    'DEFECT: core client of another world refused',
  );
  throw new GatewayError('INTERNAL_ERROR', `${what}: a ${worldOf(object)} object was handed a ${client.world} core`);
}
