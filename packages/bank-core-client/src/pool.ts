import type { Logger } from '@gateway/kernel';
import type { Registry } from 'prom-client';
import { createBankCoreClient } from './client';
import type { BankCoreClient } from './types';

/** What a pool needs to know of a bank to call its core (the banks subgraph's bankRouting). */
export interface CoreAddress {
  handle: string;
  coreBaseUrl: string;
  internalKey: string;
}

/** Deadlines every client of one pool shares: each caller's calls must fit its own budget (a lease, a page's wait). */
export interface BankCorePoolSettings {
  timeoutMs: number;
  attempts: number;
  /** Upper bound of one call including its retries. */
  budgetMs: number;
  production: boolean;
  logger: Logger;
  /** The service's registry, which /metrics serves: every client's call metrics go there (labelled by bank). */
  metrics?: Registry;
}

/**
 * One bank-core client per bank (and per core URL and key, so a changed registration gets a new
 * client). Payments' engine and open-banking's account reads each keep one pool with their own
 * deadlines.
 */
export class BankCorePool {
  private readonly clients = new Map<string, BankCoreClient>();

  constructor(private readonly settings: BankCorePoolSettings) {}

  for(bank: CoreAddress): BankCoreClient {
    const key = `${bank.handle}\n${bank.coreBaseUrl}\n${bank.internalKey}`;
    let client = this.clients.get(key);
    if (!client) {
      client = createBankCoreClient({
        bankHandle: bank.handle,
        baseUrl: bank.coreBaseUrl,
        internalKey: bank.internalKey,
        timeoutMs: this.settings.timeoutMs,
        retry: { attempts: this.settings.attempts, baseDelayMs: 100, maxDelayMs: 1_000 },
        totalBudgetMs: this.settings.budgetMs,
        production: this.settings.production,
        logger: this.settings.logger,
        metrics: this.settings.metrics,
      });
      this.clients.set(key, client);
    }
    return client;
  }
}
